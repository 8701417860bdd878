"""Sender authentication: is the From address of a reply really the player's?

A reply address is in every quoted notification, so whoever sees one could forge the
player's From and move for them. The gateway therefore asks, after it has matched the From
to the player, who vouches for that From:

1. **Our mail server**, when the operator names it (``PBEM_TRUSTED_AUTHSERV_IDS``): the
   topmost ``Authentication-Results`` header (RFC 8601) with a trusted authserv-id is its
   verdict. A DMARC ``pass`` whose ``header.from`` is the From's domain is enough, and a
   ``fail`` for it refuses; a DMARC result for any other domain decides nothing. Without a
   DMARC verdict for the From's domain, an SPF pass whose ``smtp.mailfrom`` domain, or a
   DKIM pass whose ``header.d``, aligns with the From domain is enough. Headers from other
   hosts are ignored (anyone can write them).
2. **Ourselves**, for mail our own SMTP listener took straight from the sender's server
   (channel ``smtp`` with the envelope sender the listener recorded; unless
   ``PBEM_SMTPD_CHECK_SENDERS=0``): a DKIM signature whose
   ``d=`` aligns with the From domain must verify (dkimpy; DNS through :data:`dns_txt`, which
   tests replace with a local key), and the envelope sender (``MAIL FROM``) must be of the
   From's domain too. The ``d=`` is the one dkimpy read from the signature it verified, never
   another parser's reading of "the same" header.
3. Otherwise (mail through the pipe, the webhook or IMAP with no trusted header) there is
   nobody to ask, and the reply is taken on its From as before.

A doubt is either a failure (a DKIM signature of the From's domain that does not verify, a
DMARC fail, an SPF or DKIM fail of the From's domain with no pass, a From that is not one
mailbox): refused; or "nobody could tell" (no signature, no verdict for the From's domain,
an envelope sender of another domain on unsigned mail): ``confirmable``, and the gateway
holds the reply and asks the registered mailbox to confirm it (``confirmation.py``).

Every decision reads one From, the gateway's (``extract.author_of``), and it is refused when
it is not exactly one mailbox: two From headers, a group, two addresses, or a display name or
comment holding another address (``alice@example.org <mallory@evil.test>``, also in encoded
words). Mail whose header lines Python's parser and dkimpy could split differently (a bare CR,
VT, FF, 0x1C-0x1E, or CRLF and bare LF mixed: ``header_lines.py``) never gets here: every way
in refuses it. The Sender header is not the author and decides nothing.

A player whose mail reaches us through a forwarder (which breaks SPF and DKIM) can turn the
checks off for that one address (``PATCH /players/me {"forwarded_addresses": [...]}``).
Alignment is DMARC's relaxed mode, approximated without the public suffix list: the two
domains are equal, or one is a subdomain of the other and the shorter has two labels or more.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from email import policy
from email.message import Message
from email.parser import BytesHeaderParser
from email.utils import parseaddr
from typing import Any

import authres
import dkim
from dkim import dnsplug

from service.config import Settings
from service.i18n import N_, Said
from service.mail.extract import author_of
from service.mail.models import InboundMessage
from service.models import Player

log = logging.getLogger(__name__)

DnsTxt = Callable[..., Any]
dns_txt: DnsTxt = dnsplug.get_txt
"""How DKIM keys are looked up (``name, timeout=5 -> bytes | None``); tests put a local key."""


@dataclass(frozen=True)
class Doubt:
    """Why a From is not believed. ``confirmable``: nobody could tell either way (no
    signature, no verdict for the From's domain: "none", "neutral"), so the reply is held
    and its author asked to confirm it from the registered mailbox; otherwise the mail
    failed a check outright (a signature that does not verify, a DMARC or SPF fail, a From
    that is not one mailbox) and is refused."""

    reason: Said
    """Why, to say in any reader's language."""
    confirmable: bool = False

    @property
    def why(self) -> str:
        """Why, in English."""
        return str(self.reason)


def for_player(
    row: InboundMessage, sender: str, player: Player, settings: Settings
) -> Doubt | None:
    """The gateway's one call, once the From matched one of ``player``'s addresses: why
    the reply is not believed, or None to go on (also for an address the player said is
    forwarded: its checks are off)."""
    address = next((e for e in player.emails if e.address == sender.lower()), None)
    if address is None or not address.sender_checks:
        return None
    return judged(row.raw, sender, row.channel, row.envelope_from, settings)


def refusal(
    raw: bytes, sender: str, channel: str, envelope_from: str | None, settings: Settings
) -> str:
    """Why a reply from ``sender`` is not to be believed as it stands (failed, or to be
    confirmed), or "" when it is (or nobody is there to ask)."""
    doubt = judged(raw, sender, channel, envelope_from, settings)
    return doubt.why if doubt else ""


def judged(
    raw: bytes, sender: str, channel: str, envelope_from: str | None, settings: Settings
) -> Doubt | None:
    """Why a reply from ``sender`` is not to be believed, or None when it is (or nobody can
    tell). Never raises: hostile mail makes a reason, not an exception."""
    try:
        return _judged(raw, sender.lower(), channel, envelope_from, settings)
    except Exception as error:  # a malformed header or signature is a failed check
        log.info("sender authentication could not read the message", exc_info=True)
        return Doubt(Said.of(UNREADABLE, error=type(error).__name__))


def _judged(
    raw: bytes, sender: str, channel: str, envelope_from: str | None, settings: Settings
) -> Doubt | None:
    headers = BytesHeaderParser(policy=policy.default).parsebytes(raw)
    author = author_of(headers)  # the gateway's own reading of the From: the same address
    if author.said is not None:
        return Doubt(author.said)
    if author.address != sender:
        return Doubt(_from_is_not(author.address, sender))
    domain = sender.rpartition("@")[2]
    if settings.trusted_authserv_ids:
        verdict = _trusted_results(headers, settings.trusted_authserv_ids)
        if verdict is not None:
            return _judge(verdict, domain)
    if channel == "smtp" and envelope_from is not None and settings.smtpd_check_senders:
        return _direct(raw, domain, envelope_from)
    return None


def vouched_by(raw: bytes, channel: str, envelope_from: str | None, settings: Settings) -> str:
    """Who :func:`refusal` asks about this mail, in words (``pbem doctor`` prints it): the
    trusted server's Authentication-Results, our own DKIM check, or "" (nobody: the mail is
    taken on its From). Never raises."""
    try:
        headers = BytesHeaderParser(policy=policy.default).parsebytes(raw)
        if settings.trusted_authserv_ids:
            verdict = _trusted_results(headers, settings.trusted_authserv_ids)
            if verdict is not None:
                return f"the Authentication-Results of {verdict.authserv_id} (trusted)"
        if channel == "smtp" and envelope_from is not None and settings.smtpd_check_senders:
            signers = sorted({s.domain for s in _signatures(raw) if s.verified})
            signed = f"d={', d='.join(signers)}" if signers else "none verified"
            return f"our own DKIM check ({signed}) and envelope sender {envelope_from}"
    except Exception:  # hostile mail: nobody vouches
        log.info("could not tell who vouches for a message", exc_info=True)
    return ""


# -- what our mail server said ----------------------------------------------------------------


def _trusted_results(headers: Message, trusted: tuple[str, ...]) -> Any:
    """The topmost Authentication-Results header from a trusted host, parsed, or None."""
    for name, value in headers.raw_items():
        if name.lower() != "authentication-results":
            continue
        text = " ".join(str(value).split())
        if text.partition(";")[0].strip().lower() not in trusted:
            continue
        return authres.AuthenticationResultsHeader.parse_value(text)
    return None


def _judge(header: Any, domain: str) -> Doubt | None:
    host = header.authserv_id
    dmarc = {
        result.result.lower()
        for result in header.results
        if result.method.lower() == "dmarc" and _said(result, "from") == domain
    }
    if "fail" in dmarc:
        return Doubt(Said.of(DMARC_FAILED, domain=domain, host=host))
    if "pass" in dmarc:
        return None
    failed = []
    for method, prop in (("spf", "mailfrom"), ("dkim", "d")):
        for result in header.results:
            if result.method.lower() != method or not aligned(_said(result, prop), domain):
                continue
            if result.result.lower() == "pass":
                return None
            if result.result.lower() == "fail":
                failed.append(method.upper())
    if failed:  # no pass, and a check of the From's own domain failed: that decides
        said = " and ".join(dict.fromkeys(failed))
        return Doubt(Said.of(CHECKS_FAILED, checks=said, domain=domain, host=host))
    return Doubt(Said.of(NO_PASS, host=host, domain=domain), confirmable=True)


def _said(result: Any, prop: str) -> str:
    """The domain a result's property ``prop`` names (``header.from``, ``smtp.mailfrom``,
    ``header.d``), lowercased, or ""."""
    value = next((p.value for p in result.properties if p.name.lower() == prop), "")
    return str(value or "").rpartition("@")[2].lower().rstrip(".")


# -- checking it ourselves --------------------------------------------------------------------


@dataclass(frozen=True)
class _Signature:
    domain: str
    """Its ``d=`` as dkimpy read it ("" when dkimpy could not read the signature)."""
    verified: bool


def _direct(raw: bytes, domain: str, envelope_from: str | None) -> Doubt | None:
    signatures = _signatures(raw)
    verified = any(s.verified and aligned(s.domain, domain) for s in signatures)
    if not verified and any(aligned(s.domain, domain) for s in signatures):
        return Doubt(Said.of(DKIM_BROKEN, domain=domain))
    envelope = parseaddr(envelope_from or "")[1].lower().rpartition("@")[2]
    if not aligned(envelope, domain):
        shown = Said.of(envelope_from) if envelope_from else Said.of(EMPTY)
        why = Said.of(ENVELOPE_ELSEWHERE, envelope=shown, domain=domain)
        # A signed mail sent on by someone else is a replay; unsigned, nobody can tell.
        return Doubt(why, confirmable=not verified)
    if verified:
        return None
    return Doubt(Said.of(UNSIGNED, domain=domain), confirmable=True)


UNREADABLE = N_("its sender could not be authenticated (%(error)s)")
FROM_IS_NOT = N_("its From (%(address)s) is not %(sender)s")
NO_ADDRESS = N_("no address")
DMARC_FAILED = N_("DMARC failed for %(domain)s (as %(host)s checked it): the From is forged")
CHECKS_FAILED = N_("%(checks)s failed for %(domain)s (as %(host)s checked it): the From is forged")
NO_PASS = N_(
    "%(host)s found no DMARC pass and no SPF or DKIM pass for %(domain)s: the From address "
    "is not authenticated"
)
DKIM_BROKEN = N_("the DKIM signature of %(domain)s does not verify: the mail was forged or changed")
ENVELOPE_ELSEWHERE = N_(
    "the envelope sender (%(envelope)s) is not of %(domain)s, the From address's domain"
)
EMPTY = N_("empty")
UNSIGNED = N_("the mail carries no DKIM signature of %(domain)s, so its From cannot be trusted")


def _from_is_not(address: str, sender: str) -> Said:
    shown = Said.of(address) if address else Said.of(NO_ADDRESS)
    return Said.of(FROM_IS_NOT, address=shown, sender=sender)


def _signatures(raw: bytes) -> list[_Signature]:
    """Every DKIM-Signature as dkimpy reads the message: whether it verifies, and the ``d=``
    dkimpy itself took from it. (Never another parser's ``d=`` beside dkimpy's verdict: the
    two may count header lines differently.)"""
    count = sum(name.lower() == b"dkim-signature" for name, _ in dkim.DKIM(raw).headers)
    found = []
    for index in range(count):
        checker = dkim.DKIM(raw)
        try:
            verified = bool(checker.verify(idx=index, dnsfunc=dns_txt))
        except Exception:  # a malformed signature or key fails alone, the others still count
            log.info("DKIM signature %d could not be checked", index, exc_info=True)
            verified = False
        signer = checker.domain or b""  # set by dkimpy once it has read the signature
        found.append(_Signature(signer.decode("ascii", "replace").lower().rstrip("."), verified))
    return found


def aligned(first: str, second: str) -> bool:
    """DMARC relaxed alignment, without the public suffix list (see the module's notes)."""
    first, second = first.lower().rstrip("."), second.lower().rstrip(".")
    if not first or not second:
        return False
    if first == second:
        return True
    shorter, longer = sorted((first, second), key=len)
    return longer.endswith("." + shorter) and shorter.count(".") >= 1
