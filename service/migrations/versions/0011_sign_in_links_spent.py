"""players: the expiry of the newest sign-in link used, so that each link signs in once

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("sign_in_spent_until", sa.BigInteger(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("sign_in_spent_until")
