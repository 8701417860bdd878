"""Issue 25, point 3: reliability. A player's games finished, moves on time, timeouts and
forfeits over the last twelve months, read from the games' own rows, shown on the player page
and in the API; a league may ask a minimum, its invitation and page say so, and a player short
of it is refused, quoting their figure and the minimum, by API and by mail (real gateway)."""

from __future__ import annotations

from datetime import datetime, timedelta

from flask import Flask
from sqlalchemy.orm import Session

from service import games, players, reliability
from service.db import Database
from service.i18n import LANGUAGES
from service.leagues import director, leagues
from service.leagues.mail import reliability_line
from service.models import Player, utcnow
from tests.service.conftest import Client
from tests.service.gateway_kit import latest, mails, reply, text_of
from tests.service.test_gateway_flow import send

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
DAY = timedelta(days=1)


def _player(session: Session, name: str) -> Player:
    address = f"{name.lower()}@example.org"
    found = players.by_address(session, address)
    if found is None:
        found, _ = players.create(session, None, {"name": name, "emails": [address]})
    return found


def scripted_history(database: Database, now: datetime) -> int:
    """Alice's year, move by move, with the clock set: returns her id.

    - 400 days ago: a countdown she lost on time (older than twelve months: not counted);
    - 100 days ago: a countdown played out, her two moves on time (a finished game);
    - 50 days ago: a sealed duel; turn 1 her orders on time, turn 2 missed (default orders:
      a timeout), turn 3 on time, and she wins it;
    - 20 days ago: a countdown she never moved in: lost on time (a timeout and a forfeit).
    """
    with database.transaction() as session:
        alice, bob = _player(session, "Alice"), _player(session, "Bob")

        def game(name: str, at: datetime, days: float) -> int:
            data = {"game": name, "seats": [alice.id, bob.id], "time_control": {"days": days}}
            return games.create(session, alice, data, now=at).id

        old = game("countdown", now - 400 * DAY, 2)
        games.resolve_turn(session, old, 1, now - 397 * DAY)

        played = game("countdown", now - 100 * DAY, 2)
        for number, (who, text) in enumerate(
            [(alice, "take 2"), (bob, "take 2"), (alice, "take 2"), (bob, "take 1")], start=1
        ):
            games.submit(session, played, who, number, text, now=now - 100 * DAY + number * DAY)

        duel = game("duel", now - 50 * DAY, 2)
        start = now - 50 * DAY
        games.submit(session, duel, alice, 1, "3", now=start + DAY)
        games.resolve_turn(session, duel, 1, start + 3 * DAY)  # Bob's default orders
        games.submit(session, duel, bob, 2, "1", now=start + 4 * DAY)
        games.resolve_turn(session, duel, 2, start + 6 * DAY)  # Alice's default orders
        games.submit(session, duel, alice, 3, "3", now=start + 7 * DAY)
        games.submit(session, duel, bob, 3, "1", now=start + 7 * DAY)

        lost = game("countdown", now - 20 * DAY, 1)
        games.resolve_turn(session, lost, 1, now - 18 * DAY)  # lost on time: a forfeit
        return alice.id


def test_figures_from_a_scripted_year(database: Database) -> None:
    now = utcnow()
    alice_id = scripted_history(database, now)
    with database.transaction() as session:
        figures = reliability.of_player(session, alice_id, now)
        carol = _player(session, "Carol")
        fresh = reliability.of_player(session, carol.id, now).to_json()
    assert figures.to_json() | {"since": None} == {
        "since": None,
        "games_finished": 3,  # not the one 400 days ago
        "moves_due": 6,  # 2 + 3 + 1
        "moves_on_time": 4,
        "on_time_percent": 66.7,
        "timeouts": 2,  # the duel's default orders, the game lost on time
        "forfeits": 1,  # lost on time
    }
    assert fresh["moves_due"] == 0 and fresh["on_time_percent"] is None


def test_the_api_and_the_player_page_show_it(database: Database, app: Flask, admin: Client) -> None:
    alice_id = scripted_history(database, utcnow())
    shown = admin.ok("GET", f"/players/{alice_id}")["player"]["reliability"]
    assert (shown["moves_on_time"], shown["moves_due"], shown["timeouts"]) == (4, 6, 2)
    assert shown["forfeits"] == 1 and shown["games_finished"] == 3
    page = app.test_client().get(f"/players/{alice_id}").get_data(as_text=True)
    assert "Reliability" in page and "66.7% (4 of 6)" in page
    page = (
        app.test_client()
        .get(f"/players/{alice_id}", headers={"Accept-Language": "de"})
        .get_data(as_text=True)
    )
    assert "Zuverlässigkeit" in page and "66,7" in page


def test_a_league_minimum_refuses_by_api_quoting_figure_and_minimum(
    database: Database, admin: Client
) -> None:
    alice_id = scripted_history(database, utcnow())
    made = admin.ok(
        "POST",
        "/leagues",
        {"name": "Reliable Cup", "game": "countdown", "join_code": "steady", "min_reliability": 80},
        status=201,
    )["league"]
    assert made["settings"]["min_reliability"] == 80
    page = admin.client.get(f"/leagues/{made['id']}").get_data(as_text=True)
    assert "at least 80% of moves made on time" in page
    alice = Client(admin.client, _token(database, alice_id), {"id": alice_id})
    refused = alice.post(f"/leagues/{made['id']}/join", {"code": "steady"})
    assert refused.status_code == 403
    error = refused.get_json()["error"]
    assert error["code"] == "reliability"
    assert "at least 80% of their moves on time" in error["message"]
    assert "Alice made 66.7% (4 of 6) on time" in error["message"]
    # invited and accepting: the same refusal, here in German, the language Alice reads
    admin.ok("POST", f"/leagues/{made['id']}/players", {"players": [alice_id]})
    alice.ok("PATCH", "/players/me", {"language": "de"})
    german = alice.post(f"/leagues/{made['id']}/accept")
    assert german.status_code == 403
    said = german.get_json()["error"]["message"]
    assert "Alice hat 66,7 % (4 von 6) pünktlich gemacht" in said  # a German decimal comma
    assert "66.7" not in said
    # a forfeit limit, and a player with nothing against them
    strict = admin.ok(
        "POST",
        "/leagues",
        {"name": "No forfeits", "game": "countdown", "join_code": "clean", "max_forfeits": 0},
        status=201,
    )["league"]
    alice.ok("PATCH", "/players/me", {"language": "en"})
    message = alice.post(f"/leagues/{strict['id']}/join", {"code": "clean"}).get_json()
    assert "by forfeit over the last twelve months to 0" in message["error"]["message"]
    assert "Alice lost 1 by forfeit" in message["error"]["message"]
    made_bad = admin.post("/leagues", {"name": "x", "game": "countdown", "min_reliability": 120})
    assert made_bad.status_code in (400, 422)
    with database.transaction() as session:
        carol = _player(session, "Carol")
        carol_id = carol.id
    fresh = Client(admin.client, _token(database, carol_id), {"id": carol_id})
    fresh.ok("POST", f"/leagues/{strict['id']}/join", {"code": "clean"})


def _token(database: Database, player_id: int) -> str:
    with database.transaction() as session:
        return players.issue_token(session, session.get_one(Player, player_id))


def test_the_invitation_says_the_minimum_and_a_mail_accept_is_refused(
    database: Database,
) -> None:
    scripted_history(database, utcnow())
    with database.transaction() as session:
        td, _ = players.create(
            session, None, {"name": "Tess", "emails": ["td@example.org"], "roles": ["td"]}
        )
        league = leagues.create(
            session,
            td,
            {"name": "Steady", "game": "countdown", "min_reliability": 75, "max_forfeits": 2},
        )
        leagues.invite(session, league.id, td, {"players": [ALICE, CAROL]})
        league_id = league.id
    invitation = latest(database, ALICE)
    said = " ".join(text_of(invitation).split())
    assert (
        "Reliability: players joining need, over the last twelve months, at least 75% of moves "
        "made on time and at most 2 games lost by forfeit." in said
    )
    row = send(database, reply(invitation, ALICE, "Yes, count me in!"))
    assert row.status == "rejected", row.result
    [answer] = mails(database, ALICE, "error_reply")
    body = " ".join(answer.body.split())
    assert "at least 75% of their moves on time" in body and "66.7% (4 of 6)" in body
    with database.transaction() as session:
        entry = next(e for e in leagues.get(session, league_id).entries if e.player.name == "Alice")
        assert entry.status == "invited"
    # Carol has nothing against her: accepted
    row = send(database, reply(latest(database, CAROL), CAROL, "accept"))
    assert row.status == "processed", row.result


def test_a_substitutes_seat_counts_for_whoever_held_it_then(database: Database) -> None:
    """Issue 25, 3: the turn before a director's replacement is the leaver's, the turn after
    the substitute's (``audit_log`` ``replace_player``)."""
    now = utcnow()
    with database.transaction() as session:
        alice, bob, carol = (_player(session, name) for name in ("Alice", "Bob", "Carol"))
        data = {"game": "countdown", "seats": [alice.id, bob.id], "time_control": {"days": 30}}
        game_id = games.create(session, alice, data, now=now - 10 * DAY).id
        games.submit(session, game_id, alice, 1, "take 1", now=now - 9 * DAY)
        games.submit(session, game_id, bob, 2, "take 1", now=now - 8 * DAY)
        director.replace_player(
            session, game_id, None, {"player": alice.id, "by": carol.id, "reason": "left"}
        )
    with database.transaction() as session:
        carol = _player(session, "Carol")
        games.submit(session, game_id, carol, 3, "take 1", now=utcnow() + timedelta(minutes=1))
        alice_figures = reliability.of_player(session, _player(session, "Alice").id)
        carol_figures = reliability.of_player(session, carol.id)
    assert (alice_figures.moves_due, alice_figures.moves_on_time) == (1, 1)
    assert (carol_figures.moves_due, carol_figures.moves_on_time) == (1, 1)


def test_the_minimum_in_words_in_every_language_with_plurals(database: Database) -> None:
    with database.transaction() as session:
        td, _ = players.create(session, None, {"name": "Tess", "emails": ["t@example.org"]})
        td.roles = ["td"]
        league = leagues.create(
            session,
            td,
            {"name": "L", "game": "countdown", "min_reliability": 90.5, "max_forfeits": 2},
        )
        said = {locale: reliability_line(league, locale) for locale in LANGUAGES}
        league.settings = {"max_forfeits": 1}
        one = reliability_line(league, "ru")
    assert said["en"] == (
        "players joining need, over the last twelve months, at least 90.5% of moves made on "
        "time and at most 2 games lost by forfeit"
    )
    assert "90,5" in said["de"] and "Partien" in said["de"]
    assert "2 партий" in said["ru"] and one == (
        "для вступления нужно за последние двенадцать месяцев: не более 1 партии, "
        "проигранной неявкой"
    )
    assert len(set(said.values())) == len(LANGUAGES)


def test_a_mail_accept_is_refused_in_the_players_language(database: Database) -> None:
    alice_id = scripted_history(database, utcnow())
    with database.transaction() as session:
        session.get_one(Player, alice_id).language = "de"
        td, _ = players.create(
            session, None, {"name": "Tess", "emails": ["td@example.org"], "roles": ["td"]}
        )
        league = leagues.create(
            session, td, {"name": "Stetig", "game": "countdown", "min_reliability": 75}
        )
        leagues.invite(session, league.id, td, {"players": [ALICE]})
    invitation = latest(database, ALICE)
    said = " ".join(text_of(invitation).split())
    assert (
        "Zuverlässigkeit: wer beitritt, braucht in den letzten zwölf Monaten mindestens 75 %"
        in said
    )
    row = send(database, reply(invitation, ALICE, "Ja, ich bin dabei"))
    assert row.status == "rejected", row.result
    assert len(mails(database, ALICE, "error_reply")) == 1
    body = " ".join(text_of(latest(database, ALICE)).split())
    assert "mindestens 75 % ihrer Züge pünktlich" in body and "66,7 % (4 von 6)" in body
