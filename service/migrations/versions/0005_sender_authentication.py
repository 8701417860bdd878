"""sender authentication: per-address opt-out, the envelope sender of directly received mail

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 17:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("emails") as batch:
        batch.add_column(
            sa.Column("sender_checks", sa.Boolean(), server_default=sa.true(), nullable=False)
        )
    with op.batch_alter_table("inbound_messages") as batch:
        batch.add_column(sa.Column("envelope_from", sa.String(length=254), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages") as batch:
        batch.drop_column("envelope_from")
    with op.batch_alter_table("emails") as batch:
        batch.drop_column("sender_checks")
