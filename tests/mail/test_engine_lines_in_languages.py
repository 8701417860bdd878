"""Issue 24, the rest of the engine's words: what happened in an Elemento or a Nelaxtam turn
(placed, moved, completed, removed, landed, destroyed, died...), Elasta's rubber band passes,
and the lines every game writes under its board (counts of stones, scores, supplies, dice,
Elasta's battle line and chips table) reach a German, Russian or Polish reader in their
language, and an English reader word for word as before. The engine gives the events as
reasons (``Event.why``) and the lines as ``State.info_why`` (``info()`` is their English);
the mails render them in the reader's locale (``service.mail.render.events_in``,
``info_in``)."""

from __future__ import annotations

import random
import re

import pytest

from engine import registry
from engine.core import Event, State
from service.mail.render import events_in, info_in
from tests.mail.test_engine_texts_in_languages import random_step

GAMES = ("epaminondas", "anti-grid", "elasta", "elemento", "nelaxtam")
READERS = ("de", "ru", "pl")
ENGLISH_EVENTS = re.compile(
    r"\b(placed|moved|moves|completed|point|keeps|removes|stones|rolled|dice|turned|cannot|"
    r"pass|landed|troops?|destroyed|died|after|group|pieces?|removed|controls|rubber band|"
    r"stretched|up to|down to|held|pulled|battle line|game over|Game over)\b"
)
"""Words of the events' English that no translation keeps."""
ENGLISH_INFO = re.compile(
    r"\b(Score|Supply|Common supply|Dice|to be rolled|Turn|Passes|Troops|none|territory|"
    r"destroyed|troops land|Pawns|Moves|Capture|stones|home row|Battle line|Chips of|White|Black|"
    r"Default orders|variant|wins|first)\b"
)
"""Words of the lines under the board that no translation keeps (seat names Light, Dark,
North..., O and X stay as the rule books write them)."""


def playout(name: str, seed: int, players: int | None = None) -> tuple[list[Event], list[State]]:
    """Every event of a seeded random game of ``name``, and every state it went through."""
    rng = random.Random(seed)
    state: State = registry.new_game(name, players=players).initial_state()
    events: list[Event] = []
    states = [state]
    for _ in range(400):
        if state.outcome is not None:
            break
        resolution = random_step(state, rng)
        events += resolution.events
        state = resolution.state
        states.append(state)
    return events, states


@pytest.mark.parametrize("name", GAMES)
def test_english_events_and_lines_under_the_board_are_unchanged(name: str) -> None:
    events, states = playout(name, 1)
    assert events and all(event.why is not None for event in events)
    assert all(event.why is not None and event.why.render() == event.text for event in events)
    assert [e["text"] for e in events_in("en", events)] == [e.text for e in events]
    for state in states:
        for seat in (None, 0, 1):
            lines = state.info(seat)
            assert tuple(line.render() for line in state.info_why(seat)) == lines
            assert info_in("en", state, seat, lines) == list(lines)


@pytest.mark.parametrize("locale", READERS)
@pytest.mark.parametrize("name", ("elemento", "nelaxtam", "elasta"))
def test_every_event_reaches_the_reader_in_their_language(name: str, locale: str) -> None:
    for seed in (1, 2):
        events, _ = playout(name, seed)
        told = events_in(locale, events)
        for english, event in zip(events, told, strict=True):
            assert event["text"] != english.text, (locale, english.text)
            assert not ENGLISH_EVENTS.search(event["text"]), (locale, event["text"])


@pytest.mark.parametrize("locale", READERS)
@pytest.mark.parametrize("name", GAMES)
def test_the_lines_under_the_board_reach_the_reader_in_their_language(
    name: str, locale: str
) -> None:
    _, states = playout(name, 3)
    seen = 0
    for state in states:
        english = state.info(0)
        lines = info_in(locale, state, 0, english)
        assert len(lines) == len(english)
        for line in lines:
            assert not ENGLISH_INFO.search(line), (locale, line)
            seen += 1
    assert seen > 2


def test_elemento_with_three_and_four_players_and_turned_dice_too() -> None:
    for players in (3, 4):
        events, states = playout("elemento", 4, players)
        assert not any(ENGLISH_EVENTS.search(e["text"]) for e in events_in("de", events))
        for state in states:
            for line in info_in("de", state, None, state.info()):
                assert not ENGLISH_INFO.search(line), line
    state = registry.new_game("elemento", {"dice": "turned"}).initial_state()
    state = state.apply_chance("G+R").state
    assert "Dice (turned, ELE-16): G+R (green or red)" in state.info()
    assert "Würfel (gedreht, ELE-16): G+R (grün oder rot)" in info_in("de", state, 0, state.info())


def test_a_line_that_is_not_the_state_s_own_stays_as_written() -> None:
    state = registry.new_game("elemento").initial_state()
    assert info_in("de", state, 0, ["an old line"]) == ["an old line"]


def test_elasta_s_chips_table_stays_aligned_in_every_language() -> None:
    game = registry.new_game("elasta")
    state = game.initial_state().submit(0, "76543210").submit(1, "01234567").resolve().state
    english = state.info()
    assert "Chips of turn 1:  a  b  c  d  e  f  g  h" in english
    assert "  White           7  6  5  4  3  2  1  0" in english
    for locale in ("de", "fr", "ru", "pl"):
        table = [line for line in info_in(locale, state, 0, english) if "  " in line][-3:]
        assert table[0].endswith("a  b  c  d  e  f  g  h"), (locale, table)
        assert len({len(line) for line in table}) == 1, (locale, table)  # rows end together
