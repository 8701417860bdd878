"""gunicorn settings of the web process (``Procfile``'s ``web``, ``pbem run``).

gunicorn's arbiter forks ``PBEM_WEB_WORKERS`` processes: a request's time is mostly Python on
the GIL plus short database waits, so processes, not threads, use the cores. The default
(:func:`default_workers`) depends on who else runs on the machine: ``Procfile``'s ``web``
(this file alone) has it to itself, ``pbem run`` shares it with the worker, beat and the SMTP
listener and passes ``--workers``, which wins over this file. The app factory runs in each
process after the fork, so no process shares another's database connections.

Each process is a :class:`service.web_worker.BufferingWorker`: waitress reads every request
whole in its event loop before one of the process's ``threads`` runs it, so a slow client
holds a socket, not the process (see that module for the limits). It listens on loopback
unless ``PBEM_WEB_BIND`` says otherwise (e.g. ``0.0.0.0:8000``); ``PORT`` picks the port.
"""

from __future__ import annotations

import os

DEDICATED_MAX = 9
"""At most this many by default on a machine of its own: container hosts often report the
host's cores (say 32) to a container given a fraction of them and of the memory."""
SHARED_MAX = 4
"""At most this many by default beside the other processes of ``pbem run``."""


def cores() -> int:
    """The cores this process may run on (a container's CPU set, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_workers(shared: bool) -> int:
    """Web processes when ``PBEM_WEB_WORKERS`` is unset. On a machine of its own, gunicorn's
    rule (two per core plus one: one process waits on the database while another computes).
    Under ``pbem run`` the worker, beat and the SMTP listener share the cores, and a developer's
    laptop or a small server is not serving many players at once: one per core (two threads
    each), at most four, leaves them room and memory."""
    if shared:
        return max(1, min(cores(), SHARED_MAX))
    return min(2 * cores() + 1, DEDICATED_MAX)


def workers_setting(shared: bool) -> int:
    return int(os.environ.get("PBEM_WEB_WORKERS") or default_workers(shared))


bind = os.environ.get("PBEM_WEB_BIND") or f"127.0.0.1:{os.environ.get('PORT') or 5000}"
workers = workers_setting(shared=False)
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
# gunicorn >= 25.1 opens a control socket for ``gunicornc`` in $XDG_RUNTIME_DIR or, without
# it, in ~/.gunicorn/: nothing here uses it, and the service writes under PBEM_VAR_DIR only
# (older gunicorn ignores a setting it does not know).
control_socket_disable = True
