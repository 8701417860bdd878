"""webhooks and webhook_deliveries: outgoing webhooks per player and league (issue 25, 5)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29 06:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import service.models

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("league_id", sa.Integer(), sa.ForeignKey("leagues.id"), nullable=True),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("secret", sa.String(80), nullable=False),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("created_at", service.models.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_webhooks_player_id", "webhooks", ["player_id"])
    op.create_index("ix_webhooks_league_id", "webhooks", ["league_id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("uid", sa.String(40), nullable=False, unique=True),
        sa.Column("webhook_id", sa.Integer(), sa.ForeignKey("webhooks.id"), nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("event_id", sa.String(200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", service.models.UTCDateTime(), nullable=False),
        sa.Column("sent_at", service.models.UTCDateTime(), nullable=True),
        sa.Column("failed_at", service.models.UTCDateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", service.models.UTCDateTime(), nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
    )
    op.create_index("ix_webhook_deliveries_webhook_id", "webhook_deliveries", ["webhook_id"])
    op.create_index("ix_webhook_deliveries_sent_at", "webhook_deliveries", ["sent_at"])


def downgrade() -> None:
    op.drop_index("ix_webhook_deliveries_sent_at", table_name="webhook_deliveries")
    op.drop_index("ix_webhook_deliveries_webhook_id", table_name="webhook_deliveries")
    op.drop_table("webhook_deliveries")
    op.drop_index("ix_webhooks_league_id", table_name="webhooks")
    op.drop_index("ix_webhooks_player_id", table_name="webhooks")
    op.drop_table("webhooks")
