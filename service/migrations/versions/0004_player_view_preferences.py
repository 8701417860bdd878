"""player preferences: the mover's own copy of a move, boards from the reader's side

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 16:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("own_copy", sa.String(length=8), server_default="short", nullable=False)
        )
        batch.add_column(
            sa.Column("board_flip", sa.Boolean(), server_default=sa.true(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("board_flip")
        batch.drop_column("own_copy")
