"""Settings from environment variables, with embedded defaults that need no server.

Every variable is listed in README's configuration table.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


def _hours(text: str) -> tuple[float, ...]:
    return tuple(sorted((float(part) for part in text.split(",") if part.strip()), reverse=True))


@dataclass(frozen=True)
class Settings:
    var_dir: Path
    database_url: str
    broker_url: str
    queue: str
    mail_dir: Path
    mail_from: str
    mail_sender: str
    reminder_hours: tuple[float, ...]
    sweep_seconds: float
    max_body_bytes: int
    eager: bool
    game_modules: tuple[str, ...] = field(default=())

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        var_dir = Path(env.get("PBEM_VAR_DIR", "var")).absolute()
        redis_url = env.get("REDIS_URL", "")
        default_broker = redis_url or f"sqla+sqlite:///{var_dir / 'broker.sqlite'}"
        return cls(
            var_dir=var_dir,
            database_url=env.get("DATABASE_URL") or f"sqlite:///{var_dir / 'pbem.sqlite'}",
            broker_url=env.get("CELERY_BROKER_URL") or default_broker,
            queue=env.get("PBEM_QUEUE", "pbem"),
            mail_dir=Path(env.get("PBEM_MAIL_DIR") or var_dir / "mail").absolute(),
            mail_from=env.get("PBEM_MAIL_FROM", "pbem@localhost"),
            mail_sender=env.get("PBEM_MAIL_SENDER", "eml"),
            reminder_hours=_hours(env.get("PBEM_REMINDER_HOURS", "24,2")),
            sweep_seconds=float(env.get("PBEM_SWEEP_SECONDS", "60")),
            max_body_bytes=int(env.get("PBEM_MAX_BODY_BYTES", str(64 * 1024))),
            eager=env.get("PBEM_EAGER", "") == "1",
            game_modules=tuple(m for m in env.get("PBEM_GAME_MODULES", "").split(",") if m),
        )

    def prepare(self) -> None:
        """Create the folders the embedded defaults write to."""
        self.var_dir.mkdir(parents=True, exist_ok=True)
        self.mail_dir.mkdir(parents=True, exist_ok=True)
