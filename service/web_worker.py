"""The web process's gunicorn worker: gunicorn's arbiter forks the processes (one per
``PBEM_WEB_WORKERS``, so the cores are used), and each process serves with waitress.

Why waitress inside: its event loop reads a whole request, head and body, before one of the
process's ``threads`` runs it. A client that announces a body and sends it slowly, or
trickles its headers, costs the process one socket and a buffer, never a thread, so the
other requests go on. Such a client is closed after ``READ_IDLE_SECONDS`` without a byte, or
after ``REQUEST_READ_SECONDS`` for a whole request however it trickles, and each process
holds at most ``worker_connections`` connections. As with gunicorn's sync workers, each
connection carries one request (no keep-alive), and a process accepts a connection only
with a thread free (``Server.readable``). Every gunicorn setting used comes from
``service/gunicorn_conf.py``.

Requests the server itself cannot take (a false ``Transfer-Encoding: chunked``, a bad chunk
size, both ``Content-Length`` and ``Transfer-Encoding``, a request line or header section
over the limits, an HTTP version other than 1.0 and 1.1) are answered here with a 4xx and the
API's JSON error shape, then the connection is closed: they never reach Flask.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from gunicorn.workers.base import Worker
from waitress import utilities, wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, ParsingError, TransferEncodingNotImplemented
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask

READ_IDLE_SECONDS = 15
"""A connection that sends nothing for this long in the middle of a request is closed."""
REQUEST_READ_SECONDS = 60
"""The longest a request (head and body) may take to arrive, however steadily it trickles."""
HEADER_SECTION_BYTES = 32 * 1024
"""Request line plus every header field: a larger head gets 431 as soon as it passes this."""
HEARTBEAT_SECONDS = 1.0
"""How often the worker tells the arbiter it is alive (``timeout`` kills a silent one)."""

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@dataclass(frozen=True)
class Limits:
    """gunicorn's ``limit_request_*`` settings, which gunicorn's own parser would apply."""

    request_line: int
    fields: int
    field_size: int


class UriTooLong(utilities.BadRequest):  # type: ignore[misc]  # waitress has no types
    code = 414
    reason = "URI Too Long"


class Refusal(Exception):
    """A request head refused before waitress parses it, with the answer to give."""

    def __init__(self, error: utilities.Error) -> None:
        super().__init__(error.body)
        self.error = error


def check_head(head: bytes, limits: Limits) -> None:
    """Refuse what waitress would let through or answer with a 5xx: over-long lines, too many
    fields, ambiguous framing (RFC 9112 6.1 lets a server refuse both Content-Length and
    Transfer-Encoding, and any Transfer-Encoding in HTTP/1.0), versions other than 1.x."""
    first, _, rest = head.partition(b"\r\n")
    if len(first) > limits.request_line:
        raise Refusal(UriTooLong(f"the request line is longer than {limits.request_line} bytes"))
    if not first.endswith((b" HTTP/1.1", b" HTTP/1.0")):
        raise Refusal(utilities.BadRequest("the request line must end in HTTP/1.1 or HTTP/1.0"))
    lines = [line for line in rest.split(b"\r\n") if line]
    if len(lines) > limits.fields:
        too_many = f"more than {limits.fields} header fields"
        raise Refusal(utilities.RequestHeaderFieldsTooLarge(too_many))
    if any(len(line) > limits.field_size for line in lines):
        too_long = f"a header field is longer than {limits.field_size} bytes"
        raise Refusal(utilities.RequestHeaderFieldsTooLarge(too_long))
    names = {line.partition(b":")[0].strip().lower() for line in lines}
    if b"transfer-encoding" in names and b"content-length" in names:
        both = "send Content-Length or Transfer-Encoding, not both"
        raise Refusal(utilities.BadRequest(both))
    if b"transfer-encoding" in names and first.endswith(b"HTTP/1.0"):
        raise Refusal(utilities.BadRequest("HTTP/1.0 has no Transfer-Encoding"))


def check_line_ends(head_so_far: bytes) -> None:
    """A head that ends in bare LFs would never end for waitress (it waits for CRLF CRLF)."""
    if b"\r\n\r\n" not in head_so_far and b"\n\n" in head_so_far:
        raise Refusal(utilities.BadRequest("the lines of a request end in CRLF"))


class StrictParser(HTTPRequestParser):  # type: ignore[misc]
    """waitress's parser, after :func:`check_head`; an unknown transfer coding is a 400 (the
    client's mistake), not waitress's 501."""

    completed: bool
    limits = Limits(request_line=4094, fields=100, field_size=8190)  # gunicorn's defaults

    def received(self, data: bytes) -> int:
        try:
            if self.body_rcv is None and not self.completed:
                check_line_ends(self.header_plus + data)
            consumed = int(super().received(data))
            self.check_chunk_size()
            return consumed
        except Refusal as refusal:
            if self.body_rcv is None:
                super().parse_header(b"GET / HTTP/1.0\r\n")  # what an error answer needs
            self.error = refusal.error
            self.completed = True
            return len(data)  # the connection closes after the answer: nothing more is read

    def check_chunk_size(self) -> None:
        """A chunk announced larger than any body taken is refused at once (waitress would
        wait for its bytes)."""
        if not self.chunked or self.completed or self.body_rcv is None:
            return
        limit = self.adj.max_request_body_size
        if self.body_bytes_received + self.body_rcv.chunk_remainder >= limit:
            raise Refusal(utilities.RequestEntityTooLarge(f"the body is over {limit} bytes"))

    def parse_header(self, header_plus: bytes) -> None:
        check_head(header_plus, self.limits)
        try:
            super().parse_header(header_plus)
        except TransferEncodingNotImplemented:
            raise ParsingError("the only Transfer-Encoding taken is chunked") from None


class JsonErrorTask(ErrorTask):  # type: ignore[misc]
    """waitress's error answer in the API's shape: ``{"error": {"code", "message"}}``."""

    def execute(self) -> None:
        error = self.request.error
        code = error.reason.lower().replace(" ", "_")
        message = f"the request cannot be read: {error.body}"
        if isinstance(error, utilities.InternalServerError):
            code, message = "internal", "something went wrong on our side; nothing was changed"
        body = json.dumps({"error": {"code": code, "message": message}}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class ClosingTask(WSGITask):  # type: ignore[misc]
    """A request the app answers; the connection closes after the answer, as gunicorn's
    sync workers do (see ``Server.readable`` for why)."""

    def build_response_header(self) -> Any:
        self.set_close_on_finish()
        return super().build_response_header()


class Channel(HTTPChannel):  # type: ignore[misc]
    """One client connection; remembers when its unfinished request began to arrive."""

    error_task_class = JsonErrorTask
    task_class = ClosingTask
    parser_class = StrictParser
    reading_since: float | None = None

    def received(self, data: bytes) -> bool:
        was_between_requests = self.request is None
        accepted = bool(super().received(data))
        if self.request is None:
            self.reading_since = None
        elif was_between_requests or self.reading_since is None:
            self.reading_since = time.monotonic()
        return accepted


class Server(TcpWSGIServer):  # type: ignore[misc]
    """A listening socket of gunicorn's, served by waitress; also closes connections whose
    request has been arriving for longer than ``REQUEST_READ_SECONDS``."""

    channel_class = Channel

    def readable(self) -> bool:
        # Accept only with a thread free: a busy process leaves new connections in the
        # listening socket's backlog, which every process shares, for an idle one. With one
        # request per connection (ClosingTask) every request passes that queue, so the load
        # spreads over the processes as with sync workers; kept-alive connections would stay
        # on the process that took them, however busy. Slow clients take no thread.
        can_accept = bool(super().readable())  # also runs maintenance
        return can_accept and self.free_threads() > 0

    def free_threads(self) -> int:
        tasks = self.task_dispatcher
        idle = len(tasks.threads) - tasks.stop_count - tasks.active_count
        return int(idle - len(tasks.queue))

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # idle for channel_timeout: closed
        too_old = time.monotonic() - REQUEST_READ_SECONDS
        for channel in self.active_channels.values():
            if channel.reading_since is not None and channel.reading_since < too_old:
                channel.will_close = True


class BufferingWorker(Worker):  # type: ignore[misc]
    """A gunicorn worker process whose connections waitress serves (see the module)."""

    alive: bool

    def run(self) -> None:
        StrictParser.limits = Limits(
            self.cfg.limit_request_line,
            self.cfg.limit_request_fields,
            self.cfg.limit_request_field_size,
        )
        channels: dict[int, Any] = {}  # waitress's socket map: listeners and connections
        dispatcher = ThreadedTaskDispatcher()
        dispatcher.set_thread_count(self.cfg.threads)
        adjustments = Adjustments(**self.adjustments())
        app = self.counted(self.logged(self.wsgi))
        servers = [
            Server(
                app,
                channels,
                _sock=listener.sock,
                dispatcher=dispatcher,
                adj=adjustments,
                bind_socket=False,
                sockinfo=(listener.sock.family, listener.sock.type, 0, listener.getsockname()),
            )
            for listener in self.sockets
        ]
        self.serve(channels)
        self.drain(channels, servers)
        dispatcher.shutdown(cancel_pending=True, timeout=5)
        wasyncore.close_all(channels)

    def adjustments(self) -> dict[str, Any]:
        from service.config import Settings

        settings = Settings.from_env()
        return {
            "threads": self.cfg.threads,
            "connection_limit": self.cfg.worker_connections,
            "channel_timeout": READ_IDLE_SECONDS,
            "cleanup_interval": 1,
            "max_request_header_size": HEADER_SECTION_BYTES,
            # the largest body any route takes; Flask refuses more per route (413)
            "max_request_body_size": max(settings.max_body_bytes, settings.inbound_max_bytes) + 1,
            "asyncore_use_poll": True,  # select() cannot watch a descriptor above 1023
            "ident": "pbem",
        }

    def serve(self, channels: dict[int, Any]) -> None:
        beat = 0.0
        while self.alive:
            if time.monotonic() - beat >= HEARTBEAT_SECONDS and not self.stuck():
                self.notify()
                beat = time.monotonic()
            if self.ppid != os.getppid():
                self.log.info("Parent changed, shutting down: %s", self)
                return
            wasyncore.loop(timeout=HEARTBEAT_SECONDS, map=channels, use_poll=True, count=1)

    def drain(self, channels: dict[int, Any], servers: list[Server]) -> None:
        """Stop accepting, finish the requests already read, then close every connection."""
        for server in servers:
            server.accepting = False
        deadline = time.monotonic() + self.cfg.graceful_timeout
        while time.monotonic() < deadline:
            busy = False
            for server in servers:
                for channel in list(server.active_channels.values()):
                    if channel.requests or channel.total_outbufs_len:
                        busy = True
                    else:
                        channel.will_close = True
            if not busy and not any(server.active_channels for server in servers):
                return
            self.notify()
            wasyncore.loop(timeout=0.1, map=channels, use_poll=True, count=1)

    def stuck(self) -> bool:
        """A request has run longer than ``timeout``: the worker stops reporting, so the
        arbiter kills it and starts a fresh one, as it would kill a stuck sync worker."""
        started = list(self.running.values())
        return bool(started) and time.monotonic() - min(started) > self.cfg.timeout

    def counted(self, app: WSGIApp) -> WSGIApp:
        """Requests running now (for :meth:`stuck`), and ``max_requests``: after that many
        requests this worker drains and the arbiter starts a fresh one."""
        self.running: dict[int, float] = {}  # thread id: when its request started

        def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            self.nr += 1
            if self.nr >= self.max_requests and self.alive:
                self.log.info("Autorestarting worker after current request.")
                self.alive = False
            thread = threading.get_ident()
            self.running[thread] = time.monotonic()
            try:
                return app(environ, start_response)
            finally:
                del self.running[thread]

        return serve

    def logged(self, app: WSGIApp) -> WSGIApp:
        """gunicorn's access log (``accesslog``), when one is configured."""
        if not self.log.access_log_enabled:
            return app

        def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            began = datetime.now()
            answer = SimpleNamespace(status="-", headers=[], sent=None)

            def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
                answer.status, answer.headers = status, headers
                return start_response(status, headers, *exc_info)

            try:
                return app(environ, start)
            finally:
                environ.setdefault("RAW_URI", environ.get("REQUEST_URI", ""))
                self.log.access(answer, environ, environ, datetime.now() - began)

        return serve
