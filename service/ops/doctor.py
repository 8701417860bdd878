"""``pbem doctor``: is this deployment ready for players? Each hop a mail or a page takes is
checked on its own and said as one :class:`Result` (``ok``, ``warn`` or ``FAIL``, with the
fix in plain words); the command line prints them.

:func:`checks` looks at the configuration and the servers it names: the public URL answers
our ``/healthz``, the mail domain is a real one with an MX (or mail comes by IMAP or the
webhook), the DKIM key is long enough and published, someone vouches for a player's From,
the outgoing relay takes a connection, STARTTLS and the login (no mail is sent), the
database is migrated, the broker answers and beat's sweep ran lately.

:func:`round_trip` mails an address through the real outgoing path (an outbox row, sent
and DKIM-signed like any mail) with a reply address of its own kind (``addresses.py``'s
doctor token), then waits for the reply to come back through the inbound path and reads
what the gateway made of it: who vouched for its From, as for a player's move. The reply is
never played nor answered.

Lookups that go to DNS are module attributes (:data:`mx_hosts`, and ``authentication.dns_txt``
for DKIM) so that tests can answer them locally.
"""

from __future__ import annotations

import json
import secrets
import smtplib
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.policy import default as default_policy
from typing import Literal

import dkim as dkimpy
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import func, select

from service import migrate, notify
from service.config import Settings
from service.db import Database
from service.mail import authentication, dkim, gateway, outbound
from service.mail.addresses import make_doctor_address
from service.mail.models import RECEIVED, InboundMessage
from service.mail.render import RenderedEmail, render_email
from service.models import Outbox, utcnow
from service.ops import health

State = Literal["ok", "warn", "FAIL"]
TIMEOUT = 10.0
"""Seconds each network probe may take."""
NOT_PUBLIC = (".localhost", ".local", ".test", ".invalid", ".example", ".internal")
DEFAULT_URL = "http://127.0.0.1:5000"
DOCTOR_KIND = "doctor"
"""The outbox kind of a round trip's mail: an operator's probe, not a player mail kind."""


@dataclass(frozen=True)
class Result:
    """One hop: its name, what was found, and what to do when it is not ``ok``."""

    hop: str
    state: State
    said: str
    fix: str = ""


def _reason(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


def _loose(local: bool) -> State:
    """What a setting fit for a laptop only is: a warning locally, a failure live."""
    return "warn" if local else "FAIL"


def mx_lookup(domain: str) -> list[str]:
    """The domain's MX hosts (dnspython), best first; [] when it has none."""
    import dns.exception
    import dns.resolver

    try:
        answer = dns.resolver.resolve(domain, "MX", lifetime=TIMEOUT)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return []
    except dns.exception.DNSException as error:
        raise LookupError(f"the MX lookup of {domain} failed: {_reason(error)}") from None
    records = sorted(answer, key=lambda record: record.preference)
    return [str(record.exchange).rstrip(".") for record in records if str(record.exchange) != "."]


mx_hosts: Callable[[str], list[str]] = mx_lookup
"""How MX records are looked up; tests answer locally."""


# -- the checks -------------------------------------------------------------------------------


def checks(database: Database, *, local: bool = False, dns: bool = True) -> Iterator[Result]:
    """Every hop of the deployment, in the order mail and pages take them. ``local``: a
    deployment on this machine only (defaults are warnings); ``dns``: look up MX and DKIM."""
    settings = database.settings
    yield public_url(settings, local)
    yield mail_domain(settings, local)
    yield inbound(settings, local, dns)
    yield from dkim_key(settings, local, dns)
    yield sender_checks(settings)
    yield from relay(settings, local)
    yield from database_and_broker(database)
    yield beat(settings)


def public_url(settings: Settings, local: bool) -> Result:
    url = settings.public_url
    hop = "public URL"
    if url == DEFAULT_URL and not local:
        return Result(
            hop,
            "FAIL",
            f"PBEM_PUBLIC_URL is not set (links would point to {url})",
            "set PBEM_PUBLIC_URL to the https address players open, e.g. https://pbem.example.org",
        )
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=TIMEOUT) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    except (OSError, ValueError) as error:
        return Result(
            hop,
            "FAIL",
            f"{url}/healthz does not answer: {_reason(error)}",
            "start the web process (Procfile: web) and the TLS proxy in front of it, "
            "and check that PBEM_PUBLIC_URL is the address they serve",
        )
    try:
        said = json.loads(body)
        ours = isinstance(said, dict) and {"status", "database", "broker"} <= set(said)
    except ValueError:
        ours = False
    if not ours:
        return Result(
            hop,
            "FAIL",
            f"{url}/healthz answered {status} but not as pbem does",
            "PBEM_PUBLIC_URL points at another server: make the proxy pass it to pbem's "
            "web process",
        )
    if status != 200:
        down = ", ".join(f"{k} {v}" for k, v in said.items() if k != "status" and v != "ok")
        return Result(
            hop,
            "FAIL",
            f"{url}/healthz answered {status}: {down}",
            "the web process cannot reach what it names: see the database and broker lines",
        )
    if not url.startswith("https://"):
        return Result(
            hop,
            _loose(local),
            f"{url} answers /healthz, but not over https",
            "put a TLS proxy (Caddy, nginx) in front and set PBEM_PUBLIC_URL to its https address",
        )
    return Result(hop, "ok", f"{url}/healthz answers: pbem, database and broker ok")


def mail_domain(settings: Settings, local: bool) -> Result:
    domain = settings.mail_domain.lower().rstrip(".")
    hop = "mail domain"
    if domain == "pbem.localhost" or domain.endswith(NOT_PUBLIC) or "." not in domain:
        return Result(
            hop,
            _loose(local),
            f"{domain} is not a public domain: nobody can mail it",
            "set PBEM_MAIL_DOMAIN to a domain you own (the reply addresses are play+...@it)",
        )
    return Result(hop, "ok", f"reply addresses are play+...@{domain}")


def inbound(settings: Settings, local: bool, dns: bool) -> Result:
    hop = "inbound mail"
    if settings.imap_host:
        return Result(
            hop, "ok", f"fetched by IMAP from {settings.imap_host} ({settings.imap_user})"
        )
    if settings.inbound_webhook_secret:
        return Result(hop, "ok", "handed over by your provider's webhook (secret set)")
    listener = f"pbem mail smtpd on {settings.smtpd_host}:{settings.smtpd_port}"
    if not dns:
        return Result(
            hop,
            _loose(local),
            f"MX not looked up (--no-dns); mail must reach {listener}",
            "run again without --no-dns once the domain's MX is published",
        )
    domain = settings.mail_domain
    try:
        hosts = mx_hosts(domain)
    except LookupError as error:
        return Result(hop, "FAIL", str(error), "check the DNS of the domain, then run again")
    if not hosts:
        return Result(
            hop,
            _loose(local),
            f"{domain} has no MX record: mail to it goes nowhere",
            f"publish '{domain}. MX 10 <your mail host>.' (the host runs {listener} "
            "behind port 25, or is your provider's MX), or fetch mail by IMAP (PBEM_IMAP_HOST) "
            "or a webhook (PBEM_INBOUND_WEBHOOK_SECRET)",
        )
    return Result(
        hop, "ok", f"MX of {domain}: {', '.join(hosts)} (it must hand mail to {listener})"
    )


def dkim_key(settings: Settings, local: bool, dns: bool) -> Iterator[Result]:
    hop = "DKIM key"
    try:
        key = dkim.configured(settings)
        bits = key.bits if key else 0
    except (dkim.DkimError, ValueError, TypeError) as error:
        yield Result(
            hop,
            "FAIL",
            f"the DKIM key cannot be used: {error}",
            "point PBEM_DKIM_KEY_FILE at an RSA private key ('pbem mail dns-check --new-key "
            "FILE' writes one)",
        )
        return
    if key is None:
        yield Result(
            hop,
            _loose(local),
            "no PBEM_DKIM_KEY_FILE: outgoing mail is not signed",
            "make a key with 'pbem mail dns-check --new-key FILE', set PBEM_DKIM_KEY_FILE, "
            "publish the records it prints",
        )
        return
    if bits < 2048:
        yield Result(
            hop,
            "FAIL",
            f"the DKIM key has {bits} bits; providers want 2048 or more",
            "make a new key with 'pbem mail dns-check --new-key FILE' and publish it",
        )
        return
    yield Result(hop, "ok", f"RSA {bits} bits, d={key.domain} s={key.selector}")
    yield (
        dkim_record(settings, key)
        if dns
        else Result(
            "DKIM record", _loose(local), "not looked up (--no-dns)", "run again without --no-dns"
        )
    )


def dkim_record(settings: Settings, key: dkim.DkimKey) -> Result:
    """The TXT record at ``<selector>._domainkey.<domain>`` holds our key, and a signed
    sample verifies against what DNS serves (as a receiving server will check it)."""
    hop = "DKIM record"
    fix = f"publish '{key.record_name}. TXT \"{key.record}\"' ('pbem mail dns-check' prints it)"
    try:
        found = authentication.dns_txt(f"{key.record_name}.".encode(), timeout=TIMEOUT)
    except Exception as error:  # a resolver failure is this hop failing
        return Result(hop, "FAIL", f"the lookup of {key.record_name} failed: {_reason(error)}", fix)
    if not found:
        return Result(hop, "FAIL", f"no TXT record at {key.record_name}", fix)
    text = found.decode("ascii", "replace") if isinstance(found, bytes) else str(found)
    tags = dict(part.strip().partition("=")[::2] for part in text.split(";") if "=" in part)
    published = "".join(tags.get("p", "").split())
    if published != key.public_b64:
        return Result(hop, "FAIL", f"the record at {key.record_name} holds another key", fix)
    sample = EmailMessage()
    sample["From"], sample["To"], sample["Subject"] = settings.mail_from, "check@example.org", "x"
    sample.set_content("pbem doctor\n")
    signed = dkim.sign(sample, key).as_bytes(policy=default_policy.clone(linesep="\r\n"))
    if not dkimpy.verify(signed, dnsfunc=authentication.dns_txt):
        return Result(
            hop, "FAIL", "a signed sample does not verify against the published record", fix
        )
    return Result(hop, "ok", f"{key.record_name} holds the key; a signed sample verifies")


def sender_checks(settings: Settings) -> Result:
    """Someone must vouch for a player's From, or anyone who saw a reply address moves."""
    hop = "sender checks"
    if settings.trusted_authserv_ids:
        ids = ", ".join(settings.trusted_authserv_ids)
        return Result(hop, "ok", f"the Authentication-Results of {ids} are trusted")
    fix = (
        "set PBEM_TRUSTED_AUTHSERV_IDS to the authserv-id your inbound mail server writes in "
        "its Authentication-Results header"
    )
    if settings.imap_host or settings.inbound_webhook_secret:
        return Result(hop, "FAIL", "mail by IMAP or webhook is taken on its From alone", fix)
    if settings.smtpd_check_senders:
        return Result(hop, "ok", "pbem mail smtpd checks DKIM and the envelope sender itself")
    return Result(
        hop,
        "FAIL",
        "PBEM_SMTPD_CHECK_SENDERS=0 and no trusted server: a From is believed as written",
        fix,
    )


def relay(settings: Settings, local: bool) -> Iterator[Result]:
    """Connection, STARTTLS and login to the outgoing relay, as ``notify`` opens them; no
    mail is sent."""
    if not settings.smtp_host:
        if settings.mail_sender == "eml":
            yield Result(
                "relay",
                _loose(local),
                f"no PBEM_SMTP_HOST: mail is written to files in {settings.mail_dir}",
                "set PBEM_SMTP_HOST, PBEM_SMTP_PORT, PBEM_SMTP_USER and PBEM_SMTP_PASSWORD "
                "to your relay",
            )
        else:
            yield Result("relay", "warn", f"PBEM_MAIL_SENDER={settings.mail_sender}: not checked")
        return
    where = f"{settings.smtp_host}:{settings.smtp_port}"
    try:
        smtp = smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=TIMEOUT)
        smtp.ehlo()
    except (OSError, smtplib.SMTPException) as error:
        yield Result(
            "relay",
            "FAIL",
            f"{where} does not take a connection: {_reason(error)}",
            "check PBEM_SMTP_HOST and PBEM_SMTP_PORT, and that this machine may reach it "
            "(firewall)",
        )
        return
    try:
        yield Result("relay", "ok", f"{where} answers")
        yield from _relay_session(settings, smtp, where)
    finally:
        try:
            smtp.quit()
        except (OSError, smtplib.SMTPException):
            smtp.close()


def _relay_session(settings: Settings, smtp: smtplib.SMTP, where: str) -> Iterator[Result]:
    if settings.smtp_starttls:
        context = ssl.create_default_context(cafile=settings.smtp_ca_file or None)
        try:
            smtp.starttls(context=context)
            smtp.ehlo()
        except (OSError, smtplib.SMTPException, ssl.SSLError) as error:
            yield Result(
                "relay TLS",
                "FAIL",
                f"STARTTLS with {where} failed: {_reason(error)}",
                "use the relay's submission port (587) and its real host name; a private CA "
                "goes in "
                "PBEM_SMTP_CA_FILE; PBEM_SMTP_STARTTLS=0 only for a relay on this machine",
            )
            return
        yield Result("relay TLS", "ok", "STARTTLS, certificate verified")
    else:
        yield Result(
            "relay TLS",
            "warn",
            "STARTTLS off (PBEM_SMTP_STARTTLS=0): login and mail go in clear",
            "fine for a relay on this machine only; otherwise set PBEM_SMTP_STARTTLS=1",
        )
    if not settings.smtp_user:
        yield Result(
            "relay login",
            "warn",
            "no PBEM_SMTP_USER: the relay must trust this machine",
            "set PBEM_SMTP_USER and PBEM_SMTP_PASSWORD unless the relay allows this address",
        )
        return
    try:
        smtp.login(settings.smtp_user, settings.smtp_password)
    except (OSError, smtplib.SMTPException) as error:
        yield Result(
            "relay login",
            "FAIL",
            f"{where} refused the login of {settings.smtp_user}: {_reason(error)}",
            "check PBEM_SMTP_USER and PBEM_SMTP_PASSWORD (an app password for some providers)",
        )
        return
    yield Result("relay login", "ok", f"logged in as {settings.smtp_user}")


def database_and_broker(database: Database) -> Iterator[Result]:
    try:
        health._database(database)
    except Exception as error:  # any failure is "cannot reach"
        yield Result(
            "database",
            "FAIL",
            f"unreachable: {_reason(error)}",
            "check DATABASE_URL and that the database server runs",
        )
    else:
        yield Result("database", "ok", "reachable")
        yield migrations(database)
    try:
        health._broker(database)
    except Exception as error:  # any failure is "cannot reach"
        yield Result(
            "broker",
            "FAIL",
            f"unreachable: {_reason(error)}",
            "check REDIS_URL (or CELERY_BROKER_URL) and that Redis runs",
        )
    else:
        yield Result("broker", "ok", "reachable")


def migrations(database: Database) -> Result:
    script = ScriptDirectory.from_config(migrate.alembic_config(database.settings.database_url))
    heads = set(script.get_heads())
    with database.engine.connect() as connection:
        current = set(MigrationContext.configure(connection).get_current_heads())
    if current != heads:
        at = ", ".join(sorted(current)) or "no revision"
        return Result(
            "migrations",
            "FAIL",
            f"at {at}, the code wants {', '.join(sorted(heads))}",
            "run 'pbem db upgrade'",
        )
    return Result("migrations", "ok", f"at head ({', '.join(sorted(heads))})")


def beat(settings: Settings, now: datetime | None = None) -> Result:
    """Beat schedules the sweep (turns due, mail to retry); each sweep leaves a heartbeat."""
    fix = "start beat (Procfile: beat, 'celery -A workers.app beat') and a worker"
    try:
        last = health.last_beat(settings)
    except Exception as error:  # the broker is down: said on its own line too
        return Result("beat", "FAIL", f"its heartbeat cannot be read: {_reason(error)}", fix)
    if last is None:
        return Result(
            "beat", "FAIL", "no sweep has ever run: beat or the worker is not running", fix
        )
    late = max(3 * settings.sweep_seconds, 10.0)
    age = ((now or utcnow()) - last).total_seconds()
    if age > late:
        return Result(
            "beat",
            "FAIL",
            f"the last sweep ran {age:.0f} s ago (one every {settings.sweep_seconds:g} s expected)",
            fix,
        )
    return Result("beat", "ok", f"the last sweep ran {age:.0f} s ago")


# -- the round trip ---------------------------------------------------------------------------


def round_trip(
    database: Database,
    address: str,
    timeout: float,
    poll: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Result]:
    """Mail ``address`` with a doctor reply address, and follow the reply through the
    inbound path: sent, delivered back, authenticated (how), processed."""
    settings = database.settings
    with database.transaction() as session:
        start = session.scalar(select(func.max(InboundMessage.id))) or 0
    check = secrets.randbelow(2**40)
    reply_to = make_doctor_address(settings.secret(), settings.mail_domain, check)
    sent = _send(database, address, reply_to)
    yield sent
    if sent.state == "FAIL":
        return
    deadline = time.monotonic() + timeout
    found = None
    while found is None:
        found, start = _reply_to(database, check, start)
        if found is None:
            if time.monotonic() >= deadline:
                yield _late(None, reply_to, timeout)
                return
            sleep(poll)
    yield Result("delivered back", "ok", f"stored as inbound #{found.id} ({found.channel})")
    while found.status == RECEIVED:
        if time.monotonic() >= deadline:
            yield _late(found, reply_to, timeout)
            return
        sleep(poll)
        found = _fresh(database, found.id)
    yield from _judged(found, address)


def _send(database: Database, address: str, reply_to: str) -> Result:
    """One outbox row, sent now by ``notify.send`` (DKIM-signed, over the relay) as any mail
    is; when it fails, the sweep retries it like any other."""
    settings = database.settings
    now = utcnow()
    with database.transaction() as session:
        letter = _letter(reply_to)
        row = Outbox(
            kind=DOCTOR_KIND,
            to_address=address,
            subject=letter.subject,
            body="",
            created_at=now,
            attempts=0,
            next_attempt_at=now + settings.requeue_after,
        )
        session.add(row)
        session.flush()
        envelope = outbound.Envelope(
            sender=settings.mail_from,
            to_name=None,
            to_address=address,
            date=now,
            message_id=outbound.message_id(settings.mail_domain, None, row.id, DOCTOR_KIND),
            reply_to=reply_to,
        )
        row.body = outbound.build(envelope, letter).as_string()
        row_id = row.id
    with database.transaction() as session:
        notify.send(session, settings, row_id)
        after = session.get(Outbox, row_id)
        assert after is not None
        error, done = after.last_error, after.sent_at is not None
    if not done:
        return Result(
            "sent",
            "FAIL",
            f"the mail to {address} was not sent: {error}",
            "see the relay lines above; the sweep will retry this mail",
        )
    key = dkim.configured(settings)
    signed = f"DKIM-signed d={key.domain} s={key.selector}" if key else "not DKIM-signed"
    how = (
        f"via {settings.smtp_host}:{settings.smtp_port}"
        if settings.smtp_host
        else f"by {settings.mail_sender}"
    )
    return Result(
        "sent",
        "ok",
        f"outbox #{row_id} to {address} {how}, {signed}; waiting for the reply to {reply_to}",
    )


def _letter(reply_to: str) -> RenderedEmail:
    return render_email(DOCTOR_KIND, {"reply_to": reply_to})


def _reply_to(database: Database, check: int, after: int) -> tuple[InboundMessage | None, int]:
    """The stored reply of round trip ``check`` among the messages after ``after``, and the
    last message id looked at (the next poll starts there)."""
    settings = database.settings
    with database.transaction() as session:
        rows = session.scalars(
            select(InboundMessage).where(InboundMessage.id > after).order_by(InboundMessage.id)
        ).all()
    for row in rows:
        token = gateway.doctor_token(settings, row)
        if token is not None and token.check == check:
            return row, after
    return None, max([after, *(row.id for row in rows)])


def _fresh(database: Database, inbound_id: int) -> InboundMessage:
    with database.transaction() as session:
        row = session.get(InboundMessage, inbound_id)
    assert row is not None  # inbound rows are never deleted
    return row


def _late(row: InboundMessage | None, reply_to: str, timeout: float) -> Result:
    if row is None:
        return Result(
            "delivered back",
            "FAIL",
            f"no reply to {reply_to} within {timeout:g} s",
            "check that the mail arrived and was answered, that the domain's MX reaches "
            "pbem mail smtpd (or IMAP/webhook runs), and 'pbem mail' logs; then run again",
        )
    return Result(
        "processed",
        "FAIL",
        f"inbound #{row.id} is still waiting for the gateway",
        "start a worker (Procfile: worker) and check the broker line",
    )


def _judged(row: InboundMessage, address: str) -> Iterator[Result]:
    result = row.result or ""
    if not result.startswith(gateway.DOCTOR_RESULT):
        yield Result(
            "processed",
            "FAIL",
            f"inbound #{row.id} {row.status}: {result}",
            "the gateway did not read it as the doctor's reply: see its result above",
        )
        return
    said = result.split(": ", 1)[1] if ": " in result else result
    sender = (row.sender or "").lower()
    if sender != address.lower():
        yield Result(
            "authenticated",
            "FAIL",
            f"the reply came from {sender or 'nobody'}, not {address}",
            "reply from the address the doctor mailed",
        )
    elif said.startswith("authenticated"):
        yield Result("authenticated", "ok", said.removeprefix("authenticated "))
    else:
        yield Result(
            "authenticated",
            "FAIL",
            said,
            "a player's move would be refused like this: see PBEM_TRUSTED_AUTHSERV_IDS "
            "and the sender checks line; the reply must come DKIM-signed by its domain",
        )
    yield Result(
        "processed", "ok", f"inbound #{row.id} recorded as the doctor's reply (no move, no answer)"
    )
