"""Issue 24, through the real gateway: an Elemento or a Nelaxtam turn reaches a German or a
Russian player in their language, both what happened (placed, landed troops...) and the lines
under the board (score, supply, troops, ...), while an English player reads what the engine
wrote, word for word; a starting position already over is refused in the caller's language."""

from __future__ import annotations

import pytest

import engine
from service import games
from service.db import Database
from service.errors import ServiceError
from service.models import Game
from tests.service.gateway_kit import make_game
from tests.service.test_gateway_engine_texts import ALICE, BOB, send, speaks, text


def a_move(database: Database, game_id: int, seat: int) -> str:
    """A legal move (or orders) of ``seat`` in the game as it stands."""
    with database.transaction() as session:
        state = games.state_of(session.get_one(Game, game_id))
        return (
            state.format(state.legal_actions(seat)[0])
            if not state.simultaneous
            else (state.format(state.default_action(seat)))
        )


def test_an_elemento_turn_reaches_a_german_player_in_german_and_stays_english_for_alice(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "elemento")
    speaks(database, BOB, "de")
    send(database, ALICE, a_move(database, game_id, 0), game_id)
    german = text(database, BOB, "opponent_moved")
    assert "Hell hat " in german and " gesetzt" in german, german
    assert "Punkte: Hell 0, Dunkel 0 (wer zuerst 5 hat, gewinnt)" in german
    assert "Vorrat: Hell " in german and ", Dunkel " in german
    assert "Dunkel am Zug" in german  # the seat named as the frame names it: "Alice (Hell)"
    for english in ("placed", "Score:", "Supply:", "first to 5 wins"):
        assert english not in german, (english, german)
    send(database, BOB, a_move(database, game_id, 1), game_id)
    told = text(database, ALICE, "opponent_moved")
    assert "Dark placed " in told
    assert "Score: Light 0, Dark 0 (first to 5 wins)" in told
    assert "Supply: Light " in told


def test_nelaxtam_s_invasion_reaches_german_and_russian_players_in_their_language(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "nelaxtam")
    speaks(database, ALICE, "de")
    speaks(database, BOB, "ru")
    send(database, ALICE, a_move(database, game_id, 0), game_id)
    send(database, BOB, a_move(database, game_id, 1), game_id)
    german, russian = text(database, ALICE, "turn_resolved"), text(database, BOB, "turn_resolved")
    assert "O hat Truppen gelandet: 1 auf " in german
    assert "X hat Truppen gelandet: A auf " in german
    assert "Zug 2 (Aktion, Variante wild); Züge ohne Zerstörung: 0 von 10 (NEL-13)" in german
    assert "Truppen: O 1 2 3 4 5; X A B C D E" in german
    assert "o x: Gebiet .: zerstört 1-5: Truppen von O A-E: Truppen von X" in german
    assert "O высаживает отряды: 1 на " in russian
    assert "Ход 2 (действие, вариант wild); ходов без разрушений: 0 из 10 (NEL-13)" in russian
    assert "Отряды: O 1 2 3 4 5; X A B C D E" in russian
    for told in (german, russian):
        for english in ("landed troops", "Troops:", "turns without destruction", "territory"):
            assert english not in told, (english, told)


def test_nelaxtam_s_invasion_stays_english_for_an_english_player(database: Database) -> None:
    game_id, _, _ = make_game(database, "nelaxtam")
    send(database, ALICE, a_move(database, game_id, 0), game_id)
    send(database, BOB, a_move(database, game_id, 1), game_id)
    told = text(database, ALICE, "turn_resolved")
    assert "O landed troops 1 on " in told
    assert "Turn 2 (action, wild variant); turns without destruction: 0 of 10 (NEL-13)" in told
    assert "Troops: O 1 2 3 4 5; X A B C D E" in told


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en", "the game is already over in the position '81235577 4 0': Game over: 1-0"),
        ("de", "die Partie ist in der Stellung '81235577 4 0' schon zu Ende: Spiel zu Ende: 1-0"),
        ("ru", "в позиции '81235577 4 0' партия уже окончена: Партия окончена: 1-0"),
    ],
)
def test_a_starting_position_already_over_is_refused_in_the_caller_s_language(
    locale: str, said: str
) -> None:
    with pytest.raises(ServiceError) as refused:
        games.read_start_position(engine.new_game("elasta"), "81235577 4 0")
    assert refused.value.code == "game_over"
    assert refused.value.localized(locale).startswith(said)
    assert refused.value.message == refused.value.localized("en")
