"""outbox: what to send (context, position, merged mails), rendered after commit (issue 23)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 03:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

COLUMNS = (
    ("turn", sa.Integer),
    ("in_reply_to", sa.Text),
    ("reply_to", sa.Text),
    ("report", sa.Text),
    ("context", sa.JSON),
    ("position", sa.JSON),
    ("merged", sa.JSON),
    ("done", sa.JSON),
)


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        for name, kind in COLUMNS:
            batch.add_column(sa.Column(name, kind(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        for name, _ in reversed(COLUMNS):
            batch.drop_column(name)
