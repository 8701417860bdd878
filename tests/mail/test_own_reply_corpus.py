"""Our own reply corpus (``reply_corpus.py``): replies to the service's own notifications, for
all five games, as a dozen mail clients quote them, in nine languages. The figure may rise,
never fall; a wrong move or a quoted example move played is never allowed."""

from __future__ import annotations

from tests.mail.reply_corpus import cases, reader, score

READ_AT_LEAST = 115
"""``PYTHONPATH=. python3 bench/reply_corpus.py`` (at e7442d3 the same corpus read 26 of 115)."""


def test_the_corpus_has_every_game_client_and_shape() -> None:
    built = cases()
    assert len(built) >= 60
    games = {case.position.state.game.name for case in built}
    assert games == {"anti-grid", "elasta", "elemento", "epaminondas", "nelaxtam"}
    # A quoted example played by mistake would show as a wrong move (the chain and removal
    # positions are found by search, and may happen to be examples themselves).
    plain = [case for case in built if case.position.label in games]
    assert plain and all(case.position.action not in case.examples for case in plain)


def test_every_reply_is_read_as_a_person_would_and_no_wrong_move_is_played() -> None:
    result = score(reader)
    assert result.wrong == 0, result.missed
    assert result.examples == 0, result.missed
    assert result.read >= READ_AT_LEAST, "\n".join(result.missed)
