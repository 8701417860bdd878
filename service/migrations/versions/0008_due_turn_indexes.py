"""indexes for the sweep: open turns by deadline, a turn's orders by status

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

OPEN = sa.text("resolved_at IS NULL")


def upgrade() -> None:
    op.create_index(
        "ix_turns_open_deadline",
        "turns",
        ["deadline"],
        unique=False,
        postgresql_where=OPEN,
        sqlite_where=OPEN,
    )
    op.create_index(
        "ix_orders_game_turn_status", "orders", ["game_id", "turn", "status"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_orders_game_turn_status", table_name="orders")
    op.drop_index("ix_turns_open_deadline", table_name="turns")
