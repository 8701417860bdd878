"""One typography for every game (``service/mail/typography.py``), before any game reads the
text: what phones, word processors and input methods type is read as the notation it means
(C-1), in every game alike, from what real clients send."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.mail.commands import Kind
from service.mail.extract import extract_reply
from service.mail.reading import read_reply
from service.mail.typography import normalised
from tests.mail.mail_clients import CLIENTS
from tests.mail.reply_corpus import judge, moment_mail, moments

DASHES = {
    "hyphen": "\u2010",
    "non-breaking hyphen": "\u2011",
    "figure dash": "\u2012",
    "en dash": "\u2013",
    "em dash": "\u2014",
    "horizontal bar": "\u2015",
    "minus sign": "\u2212",
    "full-width hyphen-minus": "\uff0d",
    "small hyphen-minus": "\ufe63",
}
ALTERNATING = ("epaminondas Black opponent_moved", "anti-grid Blue opponent_moved")


def played(label: str, client: str, typed: str) -> list[str]:
    """The moves read from ``client``'s reply, around the mail the service sent at ``label``."""
    moment = moments()[label]
    reply = extract_reply(CLIENTS[client](moment_mail(moment), typed))
    reading = read_reply(reply.text, judge(moment.position), reply.signature)
    return [c.argument for c in reading.commands if c.kind is Kind.MOVE]


@pytest.mark.parametrize("label", ALTERNATING)
@pytest.mark.parametrize("dash", DASHES.values(), ids=DASHES.keys())
def test_every_dash_like_is_a_hyphen_in_every_game_epa_12_ant_17(label: str, dash: str) -> None:
    """Epaminondas (EPA-12) and Anti-Grid (ANT-17) read the same text the same way: before,
    an en dash was read in one and refused in the other."""
    move = moments()[label].position.action
    assert played(label, "iPhone Mail", move.replace("-", dash)) == [move]


@pytest.mark.parametrize(
    ("label", "client"),
    [
        ("elasta Black reminder", "Gmail ja"),
        ("nelaxtam O turn_resolved", "QQ Mail, GB18030"),
        ("elemento 3p North your_turn", "Becky!, ISO-2022-JP"),
        ("anti-grid Red draw_news", "Thunderbird zh-CN"),
    ],
)
def test_full_width_input_is_read_ela_13_nel_17_ele_18(label: str, client: str) -> None:
    """A Japanese or Chinese input method in full-width mode: letters, digits, the colon, the
    at sign and the minus for the hyphen are all full-width (NFKC reads them plain)."""
    move = moments()[label].position.action
    wide = "".join(
        {"-": "\u2212", " ": "\u3000"}.get(c, chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c)
        for c in move
    )
    assert played(label, client, wide) == [move]


def test_invisible_and_directional_characters_are_dropped() -> None:
    """Zero-width spaces a phone keyboard leaves, a right-to-left mark before the move."""
    move = moments()["epaminondas Black opponent_moved"].position.action
    typed = f"\u200f{move[:2]}\u200b{move[2:]}\u2069\u00a0"
    assert played("epaminondas Black opponent_moved", "Gmail he", typed) == [move]


def test_curly_quotes_and_capitals_from_autocorrect() -> None:
    """Smart quotes around a move the phone capitalised; engines read case-insensitively."""
    label = "elemento Dark opponent_moved"
    move = moments()[label].position.action
    typed = f"“{move.lower().capitalize()}” – thanks!"
    assert played(label, "Apple Mail, flowed", typed) == [move]


@given(st.text())
def test_normalising_twice_changes_nothing(text: str) -> None:
    once = normalised(text)
    assert normalised(once) == once


@given(st.text())
def test_no_dash_like_or_invisible_character_is_left(text: str) -> None:
    left = normalised(text)
    assert not any(unicodedata.category(c) == "Pd" and c not in "-\u301c\u3030" for c in left)
    assert not set(left) & set("\u200b\u200e\u200f\u202a\u202b\u202c\u2066\u2069\ufeff")
