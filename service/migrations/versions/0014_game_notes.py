"""game_notes: a player's private note on a game (issue 25, 2), one per game and player

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-29 03:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import service.models

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_notes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("updated_at", service.models.UTCDateTime(), nullable=False),
        sa.UniqueConstraint("game_id", "player_id"),
    )
    op.create_index("ix_game_notes_game_id", "game_notes", ["game_id"])
    op.create_index("ix_game_notes_player_id", "game_notes", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_game_notes_player_id", table_name="game_notes")
    op.drop_index("ix_game_notes_game_id", table_name="game_notes")
    op.drop_table("game_notes")
