"""The ceiling of the storm benchmark: how many no-op tasks a Celery worker runs per second
here, on the same broker, with the same worker options as the service's.

Run alone: ``python3 bench/bare_celery.py [--tasks 5000]``; ``bench/storm.py`` runs it too.
"""

from __future__ import annotations

import argparse
import os
import time

from celery import Celery

COUNTER = "bench:bare:done"

celery = Celery("bare", broker=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0"))
celery.conf.update(
    task_default_queue=os.environ.get("PBEM_QUEUE", "bare") + "-bare",
    task_ignore_result=True,
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    broker_connection_retry_on_startup=True,
    broker_transport_options={"polling_interval": 0.2},
)


def _redis():  # type: ignore[no-untyped-def]
    import redis

    return redis.Redis.from_url(celery.conf.broker_url)


@celery.task(name="bare.noop")  # type: ignore[untyped-decorator]
def noop(counter: str) -> None:
    _redis().incr(counter)


def measure(tasks: int, concurrency: int = 2) -> float:
    """No-op tasks per second through one worker process of ``concurrency``."""
    import secrets

    from bench import harness

    counter = f"{COUNTER}:{secrets.token_hex(4)}"
    client = _redis()
    with harness.processes() as running:
        argv = harness.worker_argv("bench.bare_celery", concurrency, "bare")
        running.start(argv, {}, ready=harness.WORKER_READY)
        began = time.monotonic()
        for _ in range(tasks):
            noop.apply_async(args=(counter,))
        harness.wait_until(
            lambda: int(client.get(counter) or 0) >= tasks, 600, "the no-op tasks", 0.02
        )
        elapsed = time.monotonic() - began
    client.delete(counter, celery.conf.task_default_queue)
    return tasks / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    print(f"bare Celery: {measure(args.tasks, args.concurrency):.0f} no-op tasks/s")


if __name__ == "__main__":
    main()
