"""held replies: unauthenticated replies (to a game or a league invitation) kept until their
author confirms them

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 22:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "held_replies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("league_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=True),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("decided_at", UTCDateTime(), nullable=True),
        sa.Column("outcome", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["league_id"], ["leagues.id"]),
        sa.ForeignKeyConstraint(["inbound_id"], ["inbound_messages.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("inbound_id"),
    )
    op.create_index(
        "ix_held_replies_seat_turn", "held_replies", ["game_id", "player_id", "turn"], unique=False
    )
    op.create_index(
        "ix_held_replies_league_player",
        "held_replies",
        ["league_id", "player_id"],
        unique=False,
    )
    op.create_index(op.f("ix_held_replies_player_id"), "held_replies", ["player_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_held_replies_player_id"), table_name="held_replies")
    op.drop_index("ix_held_replies_league_player", table_name="held_replies")
    op.drop_index("ix_held_replies_seat_turn", table_name="held_replies")
    op.drop_table("held_replies")
