"""DKIM signing of outgoing mail (dkimpy), and the DNS records an operator must publish.

Signing only (verifying inbound mail lives in ``service/mail/authentication.py``). With
``PBEM_DKIM_KEY_FILE`` set (an RSA private key, PEM), every message is signed as it is
handed to the sender (so a retry carries a fresh signature over the same stored bytes):
``d=`` is ``PBEM_DKIM_DOMAIN`` (default: the domain of ``PBEM_MAIL_FROM``), ``s=`` is
``PBEM_DKIM_SELECTOR`` (default ``pbem``), relaxed/relaxed canonicalisation, and the signed
headers include ``List-Unsubscribe`` and ``List-Unsubscribe-Post`` as large providers ask
for one-click unsubscribing. Without a key nothing changes.

:func:`records` gives the SPF, DKIM and DMARC TXT records to publish, and :func:`check`
what can be checked without the network: the key reads and is long enough, the domains
align for DMARC, and a signed sample verifies with dkimpy's own verifier against the very
record printed (its DNS lookup answered from that record).
"""

from __future__ import annotations

import base64
import email
import email.policy
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path

import dkim
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from service.config import Settings

SIGNED_HEADERS = (
    b"from", b"to", b"subject", b"date", b"message-id", b"reply-to", b"in-reply-to",
    b"references", b"mime-version", b"content-type", b"content-transfer-encoding",
    b"auto-submitted", b"list-unsubscribe", b"list-unsubscribe-post",
)  # fmt: skip
SELECTOR = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


class DkimError(Exception):
    """The signing key is configured but unusable; the message says why."""


@dataclass(frozen=True)
class DkimKey:
    domain: str
    selector: str
    private_pem: bytes

    @property
    def public_b64(self) -> str:
        key = serialization.load_pem_private_key(self.private_pem, password=None)
        der = key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return base64.b64encode(der).decode()

    @property
    def bits(self) -> int:
        key = serialization.load_pem_private_key(self.private_pem, password=None)
        if not isinstance(key, rsa.RSAPrivateKey):
            raise DkimError("the DKIM key must be an RSA key")
        return key.key_size

    @property
    def record_name(self) -> str:
        return f"{self.selector}._domainkey.{self.domain}"

    @property
    def record(self) -> str:
        return f"v=DKIM1; k=rsa; p={self.public_b64}"


def sender_domain(settings: Settings) -> str:
    return parseaddr(settings.mail_from)[1].rpartition("@")[2].lower()


def configured(settings: Settings, env: Mapping[str, str] | None = None) -> DkimKey | None:
    """The key from ``PBEM_DKIM_KEY_FILE``, or None when signing is off."""
    env = os.environ if env is None else env
    path = env.get("PBEM_DKIM_KEY_FILE", "")
    if not path:
        return None
    try:
        pem = Path(path).read_bytes()
    except OSError as error:
        raise DkimError(f"cannot read PBEM_DKIM_KEY_FILE {path}: {error.strerror}") from None
    selector = env.get("PBEM_DKIM_SELECTOR") or "pbem"
    if not SELECTOR.match(selector):
        raise DkimError(f"PBEM_DKIM_SELECTOR {selector!r} is not a DNS label")
    domain = (env.get("PBEM_DKIM_DOMAIN") or sender_domain(settings)).lower()
    return DkimKey(domain, selector, pem)


def sign(message: EmailMessage, key: DkimKey) -> EmailMessage:
    """The message with a ``DKIM-Signature`` header on top."""
    raw = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    try:
        header = dkim.sign(
            raw,
            key.selector.encode(),
            key.domain.encode(),
            key.private_pem,
            canonicalize=(b"relaxed", b"relaxed"),
            include_headers=[h for h in SIGNED_HEADERS if h.decode() in _present(message)],
        )
    except dkim.DKIMException as error:
        raise DkimError(f"cannot DKIM-sign: {error}") from None
    signed = email.message_from_bytes(header + raw, policy=email.policy.default)
    assert isinstance(signed, EmailMessage)
    return signed


def _present(message: EmailMessage) -> set[str]:
    return {name.lower() for name in message}


def sign_if_configured(settings: Settings, message: EmailMessage) -> EmailMessage:
    key = configured(settings)
    return sign(message, key) if key else message


# -- what to publish, and what can be checked offline ------------------------------------


def records(settings: Settings, key: DkimKey | None) -> list[tuple[str, str, str]]:
    """(name, TXT value, what it is for), in the order to publish them."""
    domain = sender_domain(settings)
    spf = "v=spf1 mx ~all"
    if settings.smtp_host:
        spf = f"v=spf1 mx a:{settings.smtp_host} ~all"
    found = [(domain, spf, "SPF: the machines allowed to send as this domain")]
    if key is not None:
        found.append((key.record_name, key.record, "DKIM: the public half of the signing key"))
    found.append(
        (
            f"_dmarc.{domain}",
            f"v=DMARC1; p=none; adkim=r; aspf=r; rua=mailto:postmaster@{domain}",
            "DMARC: start with p=none, then p=quarantine once the reports are clean",
        )
    )
    return found


DnsLookup = Callable[..., bytes | None]


def check(settings: Settings, key: DkimKey | None) -> list[tuple[bool, str]]:
    """(passed, what) for each offline check."""
    domain = sender_domain(settings)
    results: list[tuple[bool, str]] = []
    results.append(
        (bool(domain) and "." in domain, f"PBEM_MAIL_FROM {settings.mail_from} has a domain")
    )
    if domain.endswith((".localhost", ".local", ".test", ".invalid", ".example")):
        results.append((False, f"{domain} is not a public domain: mail from it will not reach"))
    if key is None:
        results.append((False, "no PBEM_DKIM_KEY_FILE: outgoing mail is not DKIM-signed"))
        return results
    try:
        bits = key.bits
    except (ValueError, TypeError, DkimError) as error:
        results.append((False, f"the DKIM key does not read as an RSA private key: {error}"))
        return results
    results.append((bits >= 2048, f"the DKIM key has {bits} bits (2048 or more advised)"))
    aligned = domain == key.domain or domain.endswith("." + key.domain)
    results.append((aligned, f"DKIM d={key.domain} aligns with the From domain {domain}"))
    sample = EmailMessage()
    sample["From"], sample["To"], sample["Subject"] = settings.mail_from, "check@example.org", "x"
    sample.set_content("DKIM self-check\n")
    signed = sign(sample, key).as_bytes(policy=email.policy.default.clone(linesep="\r\n"))
    published = {key.record_name: key.record.encode()}
    ok = dkim.verify(signed, dnsfunc=lambda name, timeout=5: published.get(_name(name)))
    results.append((bool(ok), "a signed sample verifies against the DKIM record above"))
    return results


def _name(name: bytes | str) -> str:
    text = name.decode() if isinstance(name, bytes) else name
    return text.rstrip(".")


def new_key(path: Path, bits: int = 2048) -> None:
    """Write a new RSA private key (PEM, readable by the owner only)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    path.write_bytes(pem)
    path.chmod(0o600)
