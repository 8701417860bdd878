"""The mails that answer a player's own mail, in each of the nine languages (issue 24): each
kind renders with no defect (a one-line subject, the reply marker first, 80 columns, a reply
typed above it reads back, player strings escaped in HTML), says its words in the reader's
language, and a receipt block of sealed orders is checked from a mail in any language."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from markupsafe import escape

from service import i18n
from service.mail.extract import REPLY_MARKER, extract_text
from service.mail.render import RenderedEmail, render_email
from service.receipts import check_text
from tests.mail.scenarios import HOSTILE_NAME, context

REPLY_KINDS = (
    "move_receipt",
    "reply_receipt",
    "confirm_resign",
    "confirm_reply",
    "digest",
    "vacation",
    "error_reply",
    "sign_in",
)
GAME = "epaminondas"
SEALED_GAME = "nelaxtam"

ENGLISH_ONLY = {
    "move_receipt": "Played:",
    "reply_receipt": "this answers your mail about",
    "confirm_resign": "That sounds unsure",
    "confirm_reply": "nothing vouched that you sent it",
    "digest": "replies to this digest itself are not read as moves",
    "vacation": "Their clock in",
    "error_reply": "We read:",
    "sign_in": "Did you not ask for it?",
}
"""A sentence of each kind's English text: gone from its text in every other language."""

GERMAN = {
    "move_receipt": "Gespielt:",
    "reply_receipt": "dies beantwortet deine Mail zu",
    "confirm_resign": "Das klingt unsicher",
    "confirm_reply": "Hast du das geschickt?",
    "digest": "Tagesübersicht",
    "vacation": "im Urlaub",
    "error_reply": "Wir haben gelesen:",
    "sign_in": "Dein Anmeldelink",
}
"""What a German reader finds in each kind (subject or text)."""


@cache
def _values(kind: str, name: str = GAME) -> dict[str, Any]:
    values = context(kind, name)
    if kind == "reply_receipt":
        values = {**values, "headline": "Draw offered"}
    return values


@cache
def _mail(kind: str, code: str) -> RenderedEmail:
    return render_email(kind, {**_values(kind), "locale": code})


@pytest.mark.parametrize("code", i18n.LANGUAGES)
@pytest.mark.parametrize("kind", REPLY_KINDS)
def test_each_reply_mail_renders_without_defect_in_each_language(kind: str, code: str) -> None:
    mail = _mail(kind, code)
    assert mail.subject and "\n" not in mail.subject and mail.subject == mail.subject.strip()
    assert mail.text.split("\n", 1)[0] == REPLY_MARKER
    assert not [line for line in mail.text.splitlines() if len(line) > 80]
    assert extract_text(f"a1-a3\n\n{mail.text}") == "a1-a3"
    html_reply = f"<div>a1-a3</div><blockquote>{mail.html}</blockquote>"
    assert extract_text(html_reply, html=True) == "a1-a3"
    assert "<b>bold</b>" not in mail.html and str(escape(HOSTILE_NAME)) in mail.html


@pytest.mark.parametrize("code", [code for code in i18n.LANGUAGES if code != i18n.DEFAULT])
@pytest.mark.parametrize("kind", REPLY_KINDS)
def test_no_english_sentence_is_left(kind: str, code: str) -> None:
    english, mail = _mail(kind, i18n.DEFAULT), _mail(kind, code)
    assert ENGLISH_ONLY[kind] in " ".join(english.text.split())
    assert ENGLISH_ONLY[kind] not in " ".join(mail.text.split())
    assert ENGLISH_ONLY[kind] not in " ".join(mail.html.split())
    if kind != "reply_receipt":  # its subject is the gateway's headline, translated there
        assert mail.subject != english.subject


@pytest.mark.parametrize("kind", REPLY_KINDS)
def test_a_german_reader_reads_german(kind: str) -> None:
    mail = _mail(kind, "de")
    assert GERMAN[kind] in mail.subject + " ".join(mail.text.split())


def test_russian_plural_forms_in_the_digest_and_sign_in() -> None:
    """Russian has three forms: 1 партия, 2 партии, 5 партий; 30 минут."""
    digest = _mail("digest", "ru")
    games = len(_values("digest")["games"])
    word = {1: "партия", 2: "партии", 3: "партии", 4: "партии"}.get(games, "партий")
    assert f"Сводка за день: {games} {word}" in digest.subject
    assert "(30 минут)" in _mail("sign_in", "ru").subject
    five = render_email("sign_in", {**_values("sign_in"), "minutes": 5, "locale": "pl"})
    assert "(5 minut)" in five.subject


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_a_receipt_block_is_checked_from_a_mail_in_any_language(code: str) -> None:
    values = {**context("turn_resolved", SEALED_GAME), "locale": code}
    mail = render_email("turn_resolved", values)
    checks = check_text(mail.text)
    assert checks and len(checks) == len(values["receipts"]["seats"])
    assert all(check.matches for check in checks)
