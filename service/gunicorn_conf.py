"""gunicorn settings of the web process (``Procfile``'s ``web``, ``pbem run``).

gunicorn's arbiter forks ``PBEM_WEB_WORKERS`` processes (default two per core plus one): a
request's time is mostly Python on the GIL plus short database waits, so processes, not
threads, use the cores. The app factory runs in each process after the fork, so no process
shares another's database connections.

Each process is a :class:`service.web_worker.BufferingWorker`: waitress reads every request
whole in its event loop before one of the process's ``threads`` runs it, so a slow client
holds a socket, not the process (see that module for the limits). It listens on loopback
unless ``PBEM_WEB_BIND`` says otherwise (e.g. ``0.0.0.0:8000``); ``PORT`` picks the port.
"""

from __future__ import annotations

import multiprocessing
import os

bind = os.environ.get("PBEM_WEB_BIND") or f"127.0.0.1:{os.environ.get('PORT') or 5000}"
workers = int(os.environ.get("PBEM_WEB_WORKERS") or 2 * multiprocessing.cpu_count() + 1)
worker_class = "service.web_worker.BufferingWorker"
threads = int(os.environ.get("PBEM_WEB_THREADS") or 2)  # per process: run requests read whole
worker_connections = 1000  # per process: open connections, slow or not, before it stops accepting
limit_request_line = 4094  # longer: 414
limit_request_fields = 100  # more header fields: 431
limit_request_field_size = 8190  # a longer header field: 431
backlog = 2048
timeout = 60  # a process silent this long, or with a request running this long, is replaced
graceful_timeout = 30
max_requests = 10000
max_requests_jitter = 1000
accesslog = os.environ.get("PBEM_WEB_ACCESS_LOG") or None
