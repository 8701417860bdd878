"""Issue 24, "the engine stays pure; the service translates": what the engine says happened
in a turn (moves, captures, Elasta's pushes and battle line) and why a game ended reach a
German, Russian or Polish reader in their language, and an English reader word for word as
before. The engine gives each such text as a ``Reason`` (``Event.why``, ``Outcome.why``);
the mails render it in the reader's locale (``service.mail.render.events_in``/``told_in``).
"""

from __future__ import annotations

import random
import re

import pytest

from engine import registry
from engine.core import Event, Outcome, Resolution, State
from service.mail.render import events_in, told_in

GAMES = ("epaminondas", "anti-grid", "elasta")
"""The games whose events and results are given as reasons."""
READERS = ("de", "ru", "pl")
ENGLISH = re.compile(
    r"\b(played|captured|captures|stones?|Game over|game over|has|turn|revealed|beats|ties|"
    r"stick|battle line|ground line|White|Black|Red|Blue|legal move|pawns?|moves without)\b"
)
"""Words of the engine's English texts that no translation keeps."""


def random_step(state: State, rng: random.Random) -> Resolution:
    """One random step of a running game: the dice due, every seat's sealed orders, or the
    mover's move."""
    if outcomes := state.chance_outcomes():
        return state.apply_chance(rng.choice(outcomes))
    if state.simultaneous:
        for seat in state.to_act:
            state = state.submit(seat, state.random_action(seat, rng))
        return state.resolve()
    seat = state.to_act[0]
    return state.play(seat, state.random_action(seat, rng))


def playout(name: str, seed: int) -> tuple[list[Event], Outcome]:
    """Every event of a seeded random game of ``name``, and how it ended."""
    rng = random.Random(seed)
    state: State = registry.new_game(name).initial_state()
    events: list[Event] = []
    for _ in range(5000):
        if state.outcome is not None:
            return events, state.outcome
        resolution = random_step(state, rng)
        events += resolution.events
        state = resolution.state
    raise AssertionError(f"{name}: no end")


@pytest.mark.parametrize("name", GAMES)
def test_english_event_and_result_texts_are_unchanged(name: str) -> None:
    events, outcome = playout(name, 1)
    assert all(event.why is not None for event in events if event.kind != "contract")
    assert [e["text"] for e in events_in("en", events)] == [e.text for e in events]
    assert all(event.why is None or event.why.render() == event.text for event in events)
    assert outcome.why is not None and outcome.why.render() == outcome.reason
    assert told_in("en", outcome.why, outcome.reason) == outcome.reason


@pytest.mark.parametrize("locale", READERS)
@pytest.mark.parametrize("name", GAMES)
def test_events_and_result_reach_the_reader_in_their_language(name: str, locale: str) -> None:
    for seed in (1, 2):
        events, outcome = playout(name, seed)
        told = events_in(locale, [event for event in events if event.kind != "contract"])
        assert len(told) > 1
        for event in told:
            assert not ENGLISH.search(event["text"]), (locale, event["text"])
        reason = told_in(locale, outcome.why, outcome.reason)
        assert reason != outcome.reason and not ENGLISH.search(reason), (locale, reason)


def test_a_text_the_engine_did_not_give_as_a_reason_stays_as_written() -> None:
    event = Event("the sky fell", "info")
    assert events_in("de", [event])[0]["text"] == "the sky fell"
    outcome = Outcome.draw(2, "draw by agreement")
    assert outcome.why is None and told_in("de", outcome.why, outcome.reason) == "draw by agreement"


@pytest.mark.parametrize("locale", READERS)
@pytest.mark.parametrize("name", ("elemento", "nelaxtam"))
def test_the_result_of_every_other_game_reaches_the_reader_in_their_language(
    name: str, locale: str
) -> None:
    events, outcome = playout(name, 1)
    assert outcome.why is not None and outcome.why.render() == outcome.reason
    reason = told_in(locale, outcome.why, outcome.reason)
    assert reason != outcome.reason and not ENGLISH.search(reason), (locale, reason)
    end = events_in(locale, [event for event in events if event.kind == "end"])
    assert end and not ENGLISH.search(end[-1]["text"]), (locale, end)
