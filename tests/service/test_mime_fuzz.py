"""Random and mutated MIME through the whole gateway (store, authenticate, read, answer):
no message crashes it. Every one is refused at the door (``AmbiguousHeaders``: header lines
that could be split two ways) or ends ``processed``, ``ignored`` or ``rejected``, never
``failed`` (an exception inside) and never an exception out of ``process``. Hostile headers
include forged Authentication-Results from the trusted host's name, broken DKIM signatures,
bad encodings and charsets, deep multiparts and bytes that are not text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import db
from service.db import Database
from service.mail import authentication, gateway
from service.mail.models import FAILED
from tests.service.conftest import emptied, make_settings
from tests.service.gateway_kit import current_address, make_game, reply

HEADER_VALUES = st.sampled_from(
    [
        "mx.pbem.test; dmarc=fail header.from=example.org",
        "mx.pbem.test; dmarc=pass",
        "mx.pbem.test; spf=pass smtp.mailfrom=@",
        "mx.pbem.test; dkim=pass header.d=",
        "mx.pbem.test;;;; =;",
        "mx.pbem.test (comment (nested; dmarc=pass",
        "v=1; a=rsa-sha256; d=example.org; s=mail; b=AAAA; bh=BBBB; h=from",
        "v=1; d=; s=; b=",
        "=?utf-8?b?////?=",
        "=?x-unknown?q?=FF=FE?=",
        "\udcff\udcfe",
        "a" * 2000,
        "",
    ]
) | st.text(max_size=80)
HEADER_NAMES = st.sampled_from(
    [
        "Authentication-Results",
        "DKIM-Signature",
        "From",
        "To",
        "Subject",
        "Content-Type",
        "Content-Transfer-Encoding",
        "Message-ID",
        "Auto-Submitted",
        "Precedence",
        "In-Reply-To",
    ]
)
CONTENT_TYPES = st.sampled_from(
    [
        "text/plain; charset=utf-8",
        "text/plain; charset=x-no-such-charset",
        "text/html; charset=latin-1",
        'multipart/alternative; boundary="b"',
        'multipart/mixed; boundary=""',
        "multipart/report; report-type=delivery-status",
        "message/rfc822",
        "application/octet-stream",
    ]
)


@st.composite
def messages(draw: st.DrawFn, base: bytes) -> bytes:
    """A genuine-looking reply, mutated: extra headers, a strange body, cut or spliced bytes."""
    raw = base
    extra = draw(st.lists(st.tuples(HEADER_NAMES, HEADER_VALUES), max_size=6))
    head = "".join(f"{name}: {value}\r\n" for name, value in extra)
    raw = head.encode("utf-8", "surrogateescape") + raw
    how = draw(st.sampled_from(["as is", "content-type", "cut", "splice", "nest", "bytes"]))
    if how == "content-type":
        raw = f"Content-Type: {draw(CONTENT_TYPES)}\r\n".encode() + raw
    elif how == "cut":
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif how == "splice":
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.binary(max_size=200)) + raw[at:]
    elif how == "nest":
        depth = draw(st.integers(1, 60))
        opening = "".join(
            f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n'
            for i in range(depth)
        )
        raw = raw.split(b"\r\n\r\n", 1)[0] + b"\r\n" + opening.encode() + b"x\r\n"
    elif how == "bytes":
        raw = draw(st.binary(max_size=400))
    return raw


@pytest.fixture(autouse=True)
def no_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key is published anywhere: a DKIM signature in a fuzzed message fails without a
    network lookup (this machine may have no resolver; a lookup waits for its timeout)."""
    monkeypatch.setattr(authentication, "dns_txt", lambda name, timeout=5: None)


@pytest.fixture
def fuzzed(migrated: str, tmp_path: Path) -> Iterator[Database]:
    settings = make_settings(migrated, tmp_path / "var", PBEM_TRUSTED_AUTHSERV_IDS="mx.pbem.test")
    database = db.configure(settings, dispatch=lambda name, args: None)
    emptied(database)
    yield database
    database.engine.dispose()


def _crlf(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def test_random_mime_never_crashes_the_gateway(
    fuzzed: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, alice, _ = make_game(fuzzed, options={"pile": "15"})
    base = _crlf(
        reply(None, "alice@example.org", "take 1", to=current_address(fuzzed, game_id, alice))
    )
    statuses: Counter[str] = Counter()

    @settings(
        max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(raw=messages(base), channel=st.sampled_from(["smtp", "inject", "imap", "webhook"]))
    def one(raw: bytes, channel: str) -> None:
        envelope = "alice@example.org" if channel == "smtp" else None
        try:
            received = gateway.receive(fuzzed, raw or b"x", channel, (), envelope)
        except gateway.AmbiguousHeaders:  # refused at every way in, a clear answer: no crash
            statuses["refused: ambiguous header lines"] += 1
            return
        status = gateway.process(fuzzed, received.id)
        statuses[status or "none"] += 1
        assert status != FAILED

    one()
    with capsys.disabled():
        print(f"\nmime fuzz: {sum(statuses.values())} messages, statuses {dict(statuses)}")
