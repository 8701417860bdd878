"""The Celery app: ``celery -A workers.app worker`` and ``celery -A workers.app beat``.

Broker: ``REDIS_URL`` when set, otherwise kombu's SQLAlchemy transport on SQLite under
``var/`` (no server to install). Tasks leave no results.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import setup_logging

from service import db
from service.config import Settings
from service.ops import logs
from service.tasks import Task

celery = Celery("pbem", include=["workers.tasks"])
setup_logging.connect(logs.celery_setup)  # one line per record, PBEM_LOG_FORMAT=json for JSON


def configure(settings: Settings) -> None:
    settings.prepare()
    # A process configured again (the tests switch brokers) must not go on publishing through
    # the connection and producer pools it built for the previous broker.
    celery._pool = None
    celery.amqp._producer_pool = None
    celery.conf.update(
        broker_url=settings.broker_url,
        task_default_queue=settings.queue,
        task_ignore_result=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_connection_retry_on_startup=True,
        task_always_eager=settings.eager,
        beat_schedule={
            "sweep": {"task": Task.SWEEP, "schedule": settings.sweep_seconds},
            "inbound-sweep": {"task": Task.INBOUND_SWEEP, "schedule": settings.sweep_seconds},
            "league-sweep": {"task": Task.LEAGUE_SWEEP, "schedule": settings.sweep_seconds},
            **(
                {"imap-poll": {"task": Task.IMAP_POLL, "schedule": settings.imap_seconds}}
                if settings.imap_host
                else {}
            ),
        },
        beat_schedule_filename=str(settings.var_dir / "celerybeat-schedule"),
        # kombu's SQLAlchemy transport hands every transport option to create_engine
        broker_transport_options=(
            {"polling_interval": 0.2} if settings.broker_url.startswith("redis") else {}
        ),
    )


def send_task(name: str, args: tuple[Any, ...]) -> None:
    """The service's task port: queue ``name`` on the configured broker."""
    import workers.tasks  # noqa: F401  (registers the tasks)

    celery.tasks[name].apply_async(args=args)


configure(Settings.from_env())
db.plug(send_task)
app = celery
