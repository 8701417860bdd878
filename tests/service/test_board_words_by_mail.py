"""The board in words, walked as a player does (issue 21, point 10): a player chooses
``board_text: words`` and the next mail the service sends them, parsed back from the outbox,
gives the last move and the position in words and no ASCII grid; the opponent, who kept the
default, gets the words before the grid."""

from __future__ import annotations

from sqlalchemy import select

from service.db import Database
from service.mail import gateway
from service.models import Player
from tests.service.conftest import Client
from tests.service.gateway_kit import inbound, latest, make_game, reply, text_of

ALICE, BOB = "alice@example.org", "bob@example.org"
LAST_MOVE = "Last move (turn 1): White a1-a3. Changed: a1 empty; a3 white stone."
WHITE = "White: stones on b1 to n1, a2 to n2, a3 (28)."
BLACK = "Black: stones on a11 to n11, a12 to n12 (28)."


def grid_lines(text: str) -> list[str]:
    """The lines of an Epaminondas grid: the file header and the bordered ranks."""
    return [
        line
        for line in text.splitlines()
        if line.strip().startswith(("a b c", "n m l", "+--")) or " | " in line
    ]


def test_a_player_who_chooses_words_gets_no_grid_and_the_other_the_words_first(
    alice: Client, bob: Client, database: Database
) -> None:
    """Issue 21, point 10: ``board_text: words`` by the API; the next mail, read back from the
    outbox, has the words and no grid; the default reader gets the words before the grid."""
    game_id, _, _ = make_game(database, game="epaminondas")
    assert bob.ok("PATCH", "/players/me", {"board_text": "words"})["player"]["board_text"] == (
        "words"
    )
    assert alice.ok("GET", "/players/me")["player"]["board_text"] == "grid"
    raw = reply(latest(database, ALICE, game_id), ALICE, "a1-a3")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"

    words = text_of(latest(database, BOB, game_id))
    for line in (LAST_MOVE, WHITE, BLACK):
        assert line in words, words
    assert grid_lines(words) == []
    assert "marked < and ^" not in words

    raw = reply(latest(database, BOB, game_id), BOB, "a11-a10")
    assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
    both = text_of(latest(database, ALICE, game_id))
    assert "Last move (turn 2): Black a11-a10. Changed: a10 black stone; a11 empty." in both
    grid = grid_lines(both)
    assert grid and both.index("White: stones on ") < both.index(grid[0])


def test_board_text_takes_grid_or_words_only(bob: Client, database: Database) -> None:
    """Issue 21, point 10: an unknown ``board_text`` is refused with the choices."""
    bad = bob.request("PATCH", "/players/me", json={"board_text": "braille"})
    assert bad.status_code in (400, 422)
    assert "board_text" in bad.get_data(as_text=True)
    with database.transaction() as session:
        player = session.scalar(select(Player).where(Player.name == "Bob"))
        assert player is not None and player.board_text == "grid"


def test_a_preview_answer_gives_the_position_in_words(
    alice: Client, bob: Client, database: Database
) -> None:
    """Issue 21, point 10: the board a ``preview`` answer draws comes with its words, and
    alone when the player chose ``board_text: words``."""
    game_id, _, _ = make_game(database, game="epaminondas")
    for board_text in ("grid", "words"):
        alice.ok("PATCH", "/players/me", {"board_text": board_text})
        raw = reply(latest(database, ALICE, game_id), ALICE, "preview a1-a3")
        assert inbound(database, gateway.receive(database, raw, "inject").id).status == "processed"
        text = text_of(latest(database, ALICE, game_id))
        after = text[text.index("nothing stored; after it:") :]
        assert WHITE in after and BLACK in after
        assert bool(grid_lines(after)) == (board_text == "grid")
