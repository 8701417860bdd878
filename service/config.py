"""Settings from environment variables, with embedded defaults that need no server.

Every variable is listed in README's configuration table.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path


def _hours(text: str) -> tuple[float, ...]:
    return tuple(sorted((float(part) for part in text.split(",") if part.strip()), reverse=True))


WEB_PORT = 5000
WILDCARDS = ("", "0.0.0.0", "::", "*")


def web_bind(env: Mapping[str, str]) -> tuple[str, int] | None:
    """``PBEM_WEB_BIND`` read as ``(host, port)``; None when unset or not ``HOST:PORT`` (the
    processes that listen refuse a bad one with the reason: ``service.cli.server``)."""
    host, _, number = env.get("PBEM_WEB_BIND", "").strip().rpartition(":")
    if not host or not number.isdigit():
        return None
    return host.strip("[]"), int(number)


def local_url(env: Mapping[str, str]) -> str:
    """The default ``PBEM_PUBLIC_URL``: where the web process of this machine listens, so the
    links in mails work without configuration wherever the port was moved. The port is
    ``PBEM_WEB_BIND``'s, else ``PBEM_PORT`` (``pbem run``, which hands its ``--port`` to its
    processes this way), else ``PORT`` (``Procfile``'s ``web``), else 5000; a wildcard host
    (``0.0.0.0``) is reached on loopback."""
    bound = web_bind(env)
    if bound is not None:
        host, port = bound
    else:
        host = "127.0.0.1"
        given = (env.get("PBEM_PORT") or env.get("PORT") or "").strip()
        port = int(given) if given.isdigit() else WEB_PORT
    if host in WILDCARDS:
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


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
    mail_domain: str = "pbem.localhost"
    secret_key: str = ""
    smtpd_host: str = "127.0.0.1"
    smtpd_port: int = 2525
    inbound_max_bytes: int = 25 * 1024 * 1024
    inbound_webhook_secret: str = ""
    trusted_authserv_ids: tuple[str, ...] = ()
    smtpd_check_senders: bool = True
    imap_host: str = ""
    imap_port: int = 993
    imap_ssl: bool = True
    imap_user: str = ""
    imap_password: str = ""
    imap_folder: str = "INBOX"
    imap_seconds: float = 60.0
    error_replies_per_hour: int = 5
    error_replies_per_day: int = 20
    public_url: str = "http://127.0.0.1:5000"
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_starttls: bool = True
    smtp_ca_file: str = ""
    send_retry_seconds: float = 30.0
    requeue_seconds: float = 120.0
    webhooks_allow_loopback: bool = False
    """``PBEM_WEBHOOKS_ALLOW_LOOPBACK=1``: webhooks may point at 127.0.0.1/::1/localhost
    (tests, a receiver on the same host); otherwise only public addresses are reached."""
    digest_hour: int = 7

    @property
    def requeue_after(self) -> timedelta:
        """How long a queued task may wait in the broker before a sweep queues it again: long
        enough that a backlog is not queued twice over, short enough that a lost task costs
        little. Tests with a one-second sweep shorten it."""
        return timedelta(seconds=self.requeue_seconds)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        var_dir = Path(env.get("PBEM_VAR_DIR", "var")).absolute()
        redis_url = env.get("REDIS_URL", "")
        default_broker = redis_url or f"sqla+sqlite:///{var_dir / 'broker.sqlite'}"
        mail_domain = env.get("PBEM_MAIL_DOMAIN") or "pbem.localhost"
        return cls(
            var_dir=var_dir,
            database_url=env.get("DATABASE_URL") or f"sqlite:///{var_dir / 'pbem.sqlite'}",
            broker_url=env.get("CELERY_BROKER_URL") or default_broker,
            queue=env.get("PBEM_QUEUE", "pbem"),
            mail_dir=Path(env.get("PBEM_MAIL_DIR") or var_dir / "mail").absolute(),
            mail_from=env.get("PBEM_MAIL_FROM") or f"pbem@{mail_domain}",
            mail_sender=env.get("PBEM_MAIL_SENDER")
            or ("smtp" if env.get("PBEM_SMTP_HOST") else "eml"),
            reminder_hours=_hours(env.get("PBEM_REMINDER_HOURS", "24,2")),
            sweep_seconds=float(env.get("PBEM_SWEEP_SECONDS", "60")),
            max_body_bytes=int(env.get("PBEM_MAX_BODY_BYTES", str(64 * 1024))),
            eager=env.get("PBEM_EAGER", "") == "1",
            game_modules=tuple(m for m in env.get("PBEM_GAME_MODULES", "").split(",") if m),
            mail_domain=mail_domain,
            secret_key=env.get("PBEM_SECRET_KEY", ""),
            smtpd_host=env.get("PBEM_SMTPD_HOST", "127.0.0.1"),
            smtpd_port=int(env.get("PBEM_SMTPD_PORT", "2525")),
            inbound_max_bytes=int(env.get("PBEM_INBOUND_MAX_BYTES", str(25 * 1024 * 1024))),
            inbound_webhook_secret=env.get("PBEM_INBOUND_WEBHOOK_SECRET", ""),
            trusted_authserv_ids=tuple(
                part.strip().lower()
                for part in env.get("PBEM_TRUSTED_AUTHSERV_IDS", "").split(",")
                if part.strip()
            ),
            smtpd_check_senders=env.get("PBEM_SMTPD_CHECK_SENDERS", "1") != "0",
            imap_host=env.get("PBEM_IMAP_HOST", ""),
            imap_port=int(env.get("PBEM_IMAP_PORT", "993")),
            imap_ssl=env.get("PBEM_IMAP_SSL", "1") != "0",
            imap_user=env.get("PBEM_IMAP_USER", ""),
            imap_password=env.get("PBEM_IMAP_PASSWORD", ""),
            imap_folder=env.get("PBEM_IMAP_FOLDER", "INBOX"),
            imap_seconds=float(env.get("PBEM_IMAP_SECONDS", "60")),
            error_replies_per_hour=int(env.get("PBEM_ERROR_REPLIES_PER_HOUR", "5")),
            error_replies_per_day=int(env.get("PBEM_ERROR_REPLIES_PER_DAY", "20")),
            public_url=(env.get("PBEM_PUBLIC_URL") or local_url(env)).rstrip("/"),
            smtp_host=env.get("PBEM_SMTP_HOST", ""),
            smtp_port=int(env.get("PBEM_SMTP_PORT", "587")),
            smtp_user=env.get("PBEM_SMTP_USER", ""),
            smtp_password=env.get("PBEM_SMTP_PASSWORD", ""),
            smtp_starttls=env.get("PBEM_SMTP_STARTTLS", "1") != "0",
            smtp_ca_file=env.get("PBEM_SMTP_CA_FILE", ""),
            send_retry_seconds=float(env.get("PBEM_SEND_RETRY_SECONDS", "30")),
            requeue_seconds=float(env.get("PBEM_REQUEUE_SECONDS", "120")),
            webhooks_allow_loopback=env.get("PBEM_WEBHOOKS_ALLOW_LOOPBACK", "") == "1",
            digest_hour=int(env.get("PBEM_DIGEST_HOUR", "7")),
        )

    def prepare(self) -> None:
        """Create the folders the embedded defaults write to."""
        self.var_dir.mkdir(parents=True, exist_ok=True)
        self.mail_dir.mkdir(parents=True, exist_ok=True)

    def secret(self) -> bytes:
        """``PBEM_SECRET_KEY``, or a random key made once under ``var/`` (kept across restarts)."""
        if self.secret_key:
            return self.secret_key.encode()
        path = self.var_dir / "secret_key"
        if not path.exists():
            self.var_dir.mkdir(parents=True, exist_ok=True)
            draft = path.with_name(f"secret_key.{os.getpid()}.{secrets.token_hex(4)}")
            draft.write_text(secrets.token_hex(32))
            draft.chmod(0o600)
            try:
                os.link(draft, path)  # atomic and refuses to overwrite: racing processes agree
            except FileExistsError:
                pass
            finally:
                draft.unlink()
        return path.read_text().strip().encode()
