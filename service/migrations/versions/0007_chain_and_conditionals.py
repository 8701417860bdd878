"""game chain links and conditional moves

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 16:35:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import service.models

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chain_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("prev", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "number"),
    )
    op.create_index(op.f("ix_chain_links_game_id"), "chain_links", ["game_id"], unique=False)
    op.create_table(
        "conditional_moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tree", sa.JSON(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", service.models.UTCDateTime(), nullable=False),
        sa.Column("ended_at", service.models.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        op.f("ix_conditional_moves_game_id"), "conditional_moves", ["game_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_conditional_moves_game_id"), table_name="conditional_moves")
    op.drop_table("conditional_moves")
    op.drop_index(op.f("ix_chain_links_game_id"), table_name="chain_links")
    op.drop_table("chain_links")
