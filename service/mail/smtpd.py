"""The built-in SMTP listener (``pbem mail smtpd``): mail for our domain only, never a relay.

``RCPT TO`` another domain gets 550; a message past ``PBEM_INBOUND_MAX_BYTES`` gets 552 (the
``SIZE`` extension announces the limit, so a client may learn it before sending); a message
whose header lines could be split two ways (a bare CR, VT, FF, ...: ``header_lines.py``) gets
550 5.6.0. An accepted message is stored by the gateway before we answer 250, so a 250 means
it is on disk; if the database is down we answer 451 and the sending MTA tries again later.
The envelope sender (``MAIL FROM``) is stored with the message for sender authentication
(``authentication.py``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from service.db import Database
from service.mail import gateway

log = logging.getLogger(__name__)


def our_domain(address: str, domain: str) -> bool:
    return address.rpartition("@")[2].rstrip(".").lower() == domain.rstrip(".").lower()


class InboundHandler:
    """aiosmtpd hooks: accept recipients of our domain, store each message through the gateway."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        domain = self.database.settings.mail_domain
        if not our_domain(address, domain):
            return f"550 5.7.1 relaying denied: this server takes mail for {domain} only"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        loop = asyncio.get_running_loop()
        try:
            received = await loop.run_in_executor(
                None,
                gateway.receive,
                self.database,
                raw,
                "smtp",
                list(envelope.rcpt_tos),
                envelope.mail_from or "",
            )
        except gateway.TooLarge as error:  # aiosmtpd counts the limit on the wire already
            return f"552 5.3.4 {error.message}"
        except gateway.AmbiguousHeaders as error:  # a forgery's trick, or a broken client
            return f"550 5.6.0 {error.message}"
        except Exception:  # the sender's MTA keeps the message and retries
            log.exception("could not store an inbound message")
            return "451 4.3.0 cannot store the message now, try again later"
        return f"250 2.0.0 OK: stored as inbound #{received.id}"


class Listener(Controller):
    """A threaded aiosmtpd controller that may bind port 0 (tests) and tells the real port."""

    def __init__(self, database: Database, host: str, port: int) -> None:
        super().__init__(
            InboundHandler(database),
            hostname=host,
            port=port,
            data_size_limit=database.settings.inbound_max_bytes,
            server_hostname=database.settings.mail_domain,
            decode_data=False,
        )

    def _trigger_server(self) -> None:
        server: Any = self.server
        if self.port == 0 and server is not None:
            self.port = server.sockets[0].getsockname()[1]
        super()._trigger_server()  # type: ignore[no-untyped-call]
