"""Run the Alembic migrations in ``service/migrations`` (``pbem db upgrade``)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from service.db import Database

SCRIPTS = Path(__file__).with_name("migrations")


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(database: Database, revision: str = "head") -> None:
    with database.engine.connect() as connection:
        config = alembic_config(database.settings.database_url)
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        connection.commit()


def revision(url: str, message: str) -> None:
    """Autogenerate a migration from the models (developers: ``python3 -m service.migrate``)."""
    command.revision(alembic_config(url), message=message, autogenerate=True)


if __name__ == "__main__":
    import sys

    revision(sys.argv[1], sys.argv[2])
