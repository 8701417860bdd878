"""Deadlines, default orders, forfeits, time banks, reminders, vacations and the outbox,
driven through the service with an explicit ``now`` (nothing here waits or reads a clock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from service import clock, games, notify, schedule
from service.db import Database
from service.models import Game, Outbox, Turn
from tests.service.conftest import Client
from tests.service.test_api import start


def turn_row(database: Database, game_id: int) -> Turn:
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        turn = games.current_turn(session, game)
        assert turn is not None
        return turn


def after_deadline(database: Database, game_id: int) -> datetime:
    deadline = turn_row(database, game_id).deadline
    assert deadline is not None
    return deadline + timedelta(seconds=1)


def test_a_missed_sealed_turn_resolves_at_the_deadline_with_default_orders(
    database: Database, alice: Client, bob: Client
) -> None:
    game = start(alice, bob)
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "3"})
    assert schedule.sweep(database, turn_row(database, game["id"]).started_at)["turns"] == 0
    assert schedule.sweep(database, after_deadline(database, game["id"]))["turns"] == 1
    seen = bob.ok("GET", f"/games/{game['id']}")["game"]
    assert seen["turn"] == 2 and seen["view"]["position"] == "1 0"
    assert seen["seats"][1]["missed"] == 1
    events = bob.ok("GET", f"/games/{game['id']}/record")["turns"][0]["events"]
    assert events[0]["text"] == "Player 2 sent no orders and got the default: 1"


def test_resolving_a_turn_twice_resolves_it_once(
    database: Database, alice: Client, bob: Client
) -> None:
    game = start(alice, bob)
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "3"})
    now = after_deadline(database, game["id"])
    with database.transaction() as session:
        assert games.resolve_turn(session, game["id"], 1, now)
    with database.transaction() as session:
        assert not games.resolve_turn(session, game["id"], 1, now)
    assert alice.ok("GET", f"/games/{game['id']}")["game"]["turn"] == 2


def test_a_seat_forfeits_after_n_missed_turns(
    database: Database, alice: Client, bob: Client
) -> None:
    game = start(alice, bob, time_control={"days": 1, "forfeit_after": 1})
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "3"})
    schedule.sweep(database, after_deadline(database, game["id"]))
    result = alice.ok("GET", f"/games/{game['id']}")["game"]["result"]
    assert result == {
        "places": [1, 2],
        "reason": "Player 2 forfeited after 1 missed turns",
        "result": "1-0",
        "termination": "forfeit",
    }


def test_a_sequential_player_loses_on_time(database: Database, alice: Client, bob: Client) -> None:
    game = start(alice, bob, "countdown")
    schedule.sweep(database, after_deadline(database, game["id"]))
    assert alice.ok("GET", f"/games/{game['id']}")["game"]["result"]["reason"] == (
        "Player 1 lost on time"
    )


def test_a_time_bank_gains_the_increment_after_a_move(
    database: Database, alice: Client, bob: Client
) -> None:
    control = {"bank": {"initial_days": 5, "increment_days": 1, "max_days": 5.5}}
    game = start(alice, bob, "countdown", time_control=control)
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "take 1"})
    seats = alice.ok("GET", f"/games/{game['id']}")["game"]["seats"]
    assert seats[0]["bank_days"] == 5.5 and seats[1]["bank_days"] == 5


def test_deadlines_may_skip_weekends() -> None:
    friday_noon = datetime(2030, 1, 4, 12, tzinfo=UTC)
    assert clock.add_days(friday_noon, 1, skip_weekends=True) == datetime(
        2030, 1, 7, 12, tzinfo=UTC
    )
    assert clock.add_days(friday_noon, 1) == datetime(2030, 1, 5, 12, tzinfo=UTC)
    saturday = datetime(2030, 1, 5, 9, tzinfo=UTC)
    assert clock.add_days(saturday, 0.5, skip_weekends=True) == datetime(2030, 1, 7, 12, tzinfo=UTC)


def outbox(database: Database, **where: Any) -> list[Outbox]:
    with database.transaction() as session:
        query = select(Outbox).filter_by(**where).order_by(Outbox.id)
        return list(session.scalars(query))


def test_reminders_go_out_once_per_offset(database: Database, alice: Client, bob: Client) -> None:
    game = start(alice, bob, time_control={"days": 3})
    alice.ok("POST", f"/games/{game['id']}/moves", {"turn": 1, "text": "2"})
    deadline = turn_row(database, game["id"]).deadline
    assert deadline is not None
    assert schedule.sweep(database, deadline - timedelta(hours=30))["reminders"] == 0
    assert schedule.sweep(database, deadline - timedelta(hours=20))["reminders"] == 1
    assert schedule.sweep(database, deadline - timedelta(hours=19))["reminders"] == 0
    assert schedule.sweep(database, deadline - timedelta(hours=1))["reminders"] == 1
    assert schedule.sweep(database, deadline - timedelta(minutes=1))["reminders"] == 0
    sent = outbox(database, kind="reminder")
    assert [row.to_address for row in sent] == ["bob@example.org"] * 2
    assert all(row.sent_at for row in sent)


def test_messages_are_written_as_eml_files(database: Database, alice: Client, bob: Client) -> None:
    start(alice, bob)
    files = sorted(database.settings.mail_dir.glob("*.eml"))
    assert len(files) == 2
    text = files[0].read_text()
    assert "To: Alice <alice@example.org>" in text and "Subject: [pbem #" in text


def failing_sender(*args: Any) -> None:
    raise ConnectionError("mail server unreachable")


def test_a_failed_send_is_kept_and_retried_later(database: Database) -> None:
    settings = database.settings
    broken = type(settings)(**{**settings.__dict__, "mail_sender": f"{__name__}:failing_sender"})
    with database.transaction() as session:
        session.add(Outbox(kind="test", to_address="x@example.org", subject="s", body="b"))
    row = outbox(database)[0]
    with database.transaction() as session:
        assert notify.send(session, broken, row.id) == 30
    with database.transaction() as session:
        assert notify.send(session, broken, row.id) == 60
    kept = outbox(database)[0]
    assert kept.sent_at is None and kept.attempts == 2
    assert kept.last_error == "ConnectionError: mail server unreachable"
    assert kept.next_attempt_at is not None
    assert schedule.sweep(database, kept.next_attempt_at)["mail"] == 1
    assert outbox(database)[0].sent_at is not None


def test_the_sweep_queues_a_waiting_message_once_per_lease(database: Database) -> None:
    """A backlog must not be queued again on every sweep while its tasks wait in the broker."""
    now = datetime(2030, 1, 1, tzinfo=UTC)
    with database.transaction() as session:
        session.add(Outbox(kind="test", to_address="x@example.org", subject="s", body="b"))
    lease = timedelta(minutes=2)
    with database.transaction() as session:
        assert len(notify.claim_due(session, now, lease)) == 1
    with database.transaction() as session:
        assert notify.claim_due(session, now + timedelta(seconds=59), lease) == []
    with database.transaction() as session:
        lost = now + lease + timedelta(seconds=1)
        assert len(notify.claim_due(session, lost, lease)) == 1, "a lost task is queued again"


def test_a_vacation_pushes_sealed_deadlines_back_and_tells_everybody(
    database: Database, alice: Client, bob: Client
) -> None:
    game = start(alice, bob)
    before = turn_row(database, game["id"]).deadline
    assert before is not None
    alice.ok("POST", "/players/me/vacation", {"days": 3})
    after = turn_row(database, game["id"]).deadline
    assert after is not None and timedelta(days=2.9) < after - before <= timedelta(days=3)
    told = {row.to_address for row in outbox(database, kind="vacation")}
    assert told == {"alice@example.org", "bob@example.org"}
    too_long = alice.request("POST", "/players/me/vacation", json={"days": 30})
    assert (
        too_long.status_code == 409
        and "vacation days are left" in too_long.get_json()["error"]["message"]
    )


def test_a_vacation_stops_the_clock_of_the_player_to_move_in_an_alternating_game(
    database: Database, alice: Client, bob: Client
) -> None:
    game = start(alice, bob, "countdown")
    before = turn_row(database, game["id"]).deadline
    assert before is not None
    bob.ok("POST", "/players/me/vacation", {"days": 2})
    assert turn_row(database, game["id"]).deadline == before, "Bob's clock is not running"
    alice.ok("POST", "/players/me/vacation", {"days": 3})
    after = turn_row(database, game["id"]).deadline
    assert after is not None and timedelta(days=2.9) < after - before <= timedelta(days=3)
    assert schedule.sweep(database, before + timedelta(seconds=1))["turns"] == 0
    assert alice.ok("GET", f"/games/{game['id']}")["game"]["status"] == "active"


def test_directors_set_deadlines_and_players_may_not(
    admin: Client, alice: Client, bob: Client
) -> None:
    game = start(alice, bob)
    path = f"/games/{game['id']}/deadline"
    assert (
        alice.request("PATCH", path, json={"deadline": "2030-01-01T00:00:00Z"}).status_code == 403
    )
    done = admin.ok("PATCH", path, {"deadline": "2030-01-01T00:00:00Z"})["game"]
    assert done["deadline"] == "2030-01-01T00:00:00+00:00"


@pytest.mark.parametrize("bad", [{"days": "two"}, {"forfeit_after": -1}, {"bank": 5}])
def test_bad_time_controls_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(Exception, match="time_control"):
        clock.normalise(bad)
