"""operations: league co-directors, games started from a position

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 16:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import service.models

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "league_directors",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("added_by", sa.Integer(), nullable=True),
        sa.Column("added_at", service.models.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["added_by"], ["players.id"]),
        sa.ForeignKeyConstraint(["league_id"], ["leagues.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("league_id", "player_id"),
    )
    op.create_index(
        op.f("ix_league_directors_league_id"), "league_directors", ["league_id"], unique=False
    )
    op.create_index(
        op.f("ix_league_directors_player_id"), "league_directors", ["player_id"], unique=False
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("start_position", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("start_position")
    op.drop_index(op.f("ix_league_directors_player_id"), table_name="league_directors")
    op.drop_index(op.f("ix_league_directors_league_id"), table_name="league_directors")
    op.drop_table("league_directors")
