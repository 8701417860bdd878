"""gunicorn settings of the web process (``Procfile``'s ``web``, ``pbem run``).

Sync workers, ``PBEM_WEB_WORKERS`` of them (default two per core plus one): a request's time
is mostly Python on the GIL plus short database waits, so processes, not threads, use the
cores. The app factory runs in each worker after the fork, so no worker shares another's
database connections.
"""

from __future__ import annotations

import multiprocessing
import os

bind = os.environ.get("PBEM_WEB_BIND") or f"0.0.0.0:{os.environ.get('PORT') or 5000}"
workers = int(os.environ.get("PBEM_WEB_WORKERS") or 2 * multiprocessing.cpu_count() + 1)
worker_class = "sync"
backlog = 2048
timeout = 60
graceful_timeout = 30
max_requests = 10000
max_requests_jitter = 1000
accesslog = os.environ.get("PBEM_WEB_ACCESS_LOG") or None
