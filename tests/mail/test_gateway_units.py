"""Gateway pieces that need no database: deduplication keys, recipients, the webhook's
signature check and the listener's domain test."""

from __future__ import annotations

import pytest

from service.errors import Forbidden, Unauthorized
from service.mail import gateway, smtpd, webhook
from service.mail.models import InboundMessage

MAIL = b"Message-ID: <a1@example.org>\r\nFrom: ann@example.org\r\nSubject: x\r\n\r\ne2-e4\r\n"


def test_the_same_message_id_is_the_same_message_whatever_the_bytes() -> None:
    resent = MAIL.replace(b"Subject: x", b"Subject: x (resent)")
    assert gateway.dedup_key(MAIL) == gateway.dedup_key(resent)
    assert gateway.dedup_key(MAIL).startswith("mid:")


def test_without_message_id_the_bytes_decide() -> None:
    bare = b"From: ann@example.org\r\n\r\ne2-e4\r\n"
    assert gateway.dedup_key(bare).startswith("sha:")
    assert gateway.dedup_key(bare) != gateway.dedup_key(bare + b"x")


@pytest.mark.parametrize("raw", [b"", b"\xff\xfe\x00", b"Message-ID:\r\n\r\n", b"::::\r\n"])
def test_garbage_has_no_message_id_and_never_raises(raw: bytes) -> None:
    assert gateway.message_id_of(raw) == ""
    assert len(gateway.dedup_key(raw)) <= 80


def test_recipients_come_from_the_envelope_then_the_headers() -> None:
    raw = b"Delivered-To: play+b@pbem.example\r\nTo: Ann <play+c@pbem.example>\r\n\r\nx\r\n"
    row = InboundMessage(raw=raw, recipient="play+a@pbem.example")
    assert gateway._recipients(row) == [
        "play+a@pbem.example",
        "play+b@pbem.example",
        "play+c@pbem.example",
    ]


def test_the_webhook_accepts_only_the_right_signature_or_secret() -> None:
    body = b"raw message"
    webhook.check("k", body, {webhook.SIGNATURE_HEADER: webhook.signature("k", body)})
    webhook.check("k", body, {"Authorization": "Bearer k"})
    with pytest.raises(Forbidden):
        webhook.check("k", body + b"!", {webhook.SIGNATURE_HEADER: webhook.signature("k", body)})
    with pytest.raises(Forbidden):
        webhook.check("k", body, {"Authorization": "Bearer K"})
    with pytest.raises(Unauthorized):
        webhook.check("k", body, {})


@pytest.mark.parametrize(
    ("address", "ours"),
    [
        ("play+x@pbem.example", True),
        ("PLAY+x@PBEM.Example.", True),
        ("play+x@pbem.example.com", False),
        ("play+x@sub.pbem.example", False),
        ("nobody", False),
    ],
)
def test_the_listener_takes_mail_for_our_domain_only(address: str, ours: bool) -> None:
    assert smtpd.our_domain(address, "pbem.example") is ours
