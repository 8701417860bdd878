"""issue 21, point 7: the mails of a game played in a league name the league and the round
(subject and body), from the first mail of the game on; a game outside a league does not."""

from __future__ import annotations

from service import games
from service.db import Database
from service.models import Game
from tests.service.gateway_kit import latest, mails, make_game, reply, text_of
from tests.service.test_gateway_flow import send
from tests.service.test_leagues_simulation import make_league, playing, rows_of


def seat_addresses(database: Database, game_id: int) -> list[str]:
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        return [seat.player.address for seat in game.seats]


def test_league_game_mails_name_the_league_and_the_round(database: Database) -> None:
    league_id = make_league(database, 4, "round_robin")
    name = "round_robin of 4"
    first = playing(database, league_id)
    assert len(first) == 2
    for game_id in first:
        for address in seat_addresses(database, game_id):
            [started] = [m for m in mails(database, address, "game_started")]
            assert f"[pbem #{game_id} Countdown · {name}, round 1] " in started.subject
            mail = latest(database, address, game_id)
            text = " ".join(text_of(mail).split())
            assert f"League game: {name}, round 1." in text
            assert f"League page: http://127.0.0.1:5000/leagues/{league_id}" in text
            html = mail.get_body(("html",))
            assert html is not None and f"{name}</a>, round 1." in html.get_content()
    # A move replied by mail later in the game: the next mail names the round too.
    game_id = first[0]
    with database.transaction() as session:
        to_act = games.state_of(session.get_one(Game, game_id)).to_act[0]
    mover, other = seat_addresses(database, game_id)[:: 1 if to_act == 0 else -1]
    row = send(database, reply(latest(database, mover, game_id), mover, "take 1"))
    assert row.status == "processed", row.result
    after = latest(database, other, game_id)
    assert f"· {name}, round 1] " in str(after["Subject"])
    assert f"League game: {name}, round 1." in text_of(after)
    # Round 2: its games say round 2.
    with database.transaction() as session:
        for game_id in first:
            game = session.get_one(Game, game_id)
            if game.status == "active":
                games.resign(session, game_id, game.seats[0].player)
    _, rows, _ = rows_of(database, league_id)
    second = [r.game_id for r in rows if r.round == 2 and r.game_id is not None]
    assert second
    for game_id in second:
        for address in seat_addresses(database, game_id):
            subject = str(latest(database, address, game_id)["Subject"])
            assert f"· {name}, round 2] " in subject


def test_a_game_outside_a_league_names_no_league(database: Database) -> None:
    game_id, _, _ = make_game(database, options={"pile": "7"})
    mail = latest(database, "alice@example.org", game_id)
    assert str(mail["Subject"]).startswith(f"[pbem #{game_id} Countdown] ")
    assert "League" not in text_of(mail)
