"""takeback offers and held mail moves (issue 25, 1): games.takeback_offer,
players.send_delay_minutes, held_moves

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-29 06:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import service.models

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("takeback_offer", sa.JSON(), nullable=True))
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("send_delay_minutes", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_table(
        "held_moves",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("due_at", service.models.UTCDateTime(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("created_at", service.models.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_held_moves_game_id", "held_moves", ["game_id"])
    op.create_index("ix_held_moves_player_id", "held_moves", ["player_id"])
    op.create_index("ix_held_moves_due_at", "held_moves", ["due_at"])
    op.create_index("ix_held_moves_status", "held_moves", ["status"])


def downgrade() -> None:
    for name in ("status", "due_at", "player_id", "game_id"):
        op.drop_index(f"ix_held_moves_{name}", table_name="held_moves")
    op.drop_table("held_moves")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("send_delay_minutes")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("takeback_offer")
