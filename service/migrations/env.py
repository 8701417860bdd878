"""Alembic environment: the URL comes from the caller (``service.migrate``) or the settings."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from service.config import Settings
from service.models import Base

config = context.config
url = config.get_main_option("sqlalchemy.url") or Settings.from_env().database_url

if context.is_offline_mode():
    context.configure(url=url, target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
elif "connection" in config.attributes:
    context.configure(connection=config.attributes["connection"], target_metadata=Base.metadata)
    with context.begin_transaction():
        context.run_migrations()
else:
    with create_engine(url).connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata)
        with context.begin_transaction():
            context.run_migrations()
