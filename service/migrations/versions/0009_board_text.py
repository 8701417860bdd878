"""player preference: the board in a mail's text part as words and grid, or words alone

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 17:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("board_text", sa.String(length=8), server_default="grid", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("board_text")
