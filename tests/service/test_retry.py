"""``db.retrying``: a deadlock or serialization failure runs the whole work again, a bounded
number of times; any other error goes straight through."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError

from service import db
from service.db import Database
from service.mail import gateway
from tests.service.gateway_kit import current_address, game_row, make_game, reply


class _Deadlock(Exception):
    sqlstate = "40P01"


def _conflict() -> OperationalError:
    return OperationalError("UPDATE games ...", {}, _Deadlock("deadlock detected"))


def test_a_deadlock_runs_the_work_again_until_it_succeeds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db.time, "sleep", lambda seconds: None)
    calls: list[int] = []

    @db.retrying
    def work() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise _conflict()
        return "done"

    assert work() == "done" and len(calls) == 3


def test_a_lasting_conflict_is_refused_as_busy_and_other_errors_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(db.time, "sleep", lambda seconds: None)
    calls: list[int] = []

    @db.retrying
    def always() -> None:
        calls.append(1)
        raise RuntimeError("wrapped") from _conflict()

    with pytest.raises(db.Busy) as busy:
        always()
    assert len(calls) == db.ATTEMPTS and busy.value.status == 409

    @db.retrying
    def broken() -> None:
        calls.append(1)
        raise ValueError("not a conflict")

    with pytest.raises(ValueError):
        broken()
    assert len(calls) == db.ATTEMPTS + 1


def test_a_deadlock_inside_the_gateway_runs_the_message_again_not_failed(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway keeps a message ``failed`` on an error of its own, but a deadlock is not
    the message's fault: the task runs it again and the move is played once."""
    from workers import tasks

    monkeypatch.setattr(db.time, "sleep", lambda seconds: None)
    game_id, alice, _ = make_game(database, options={"pile": "7"})
    real_run = gateway._Handling.run
    calls: list[int] = []

    def run_once_in_a_deadlock(self: gateway._Handling) -> tuple[str, str]:
        calls.append(1)
        if len(calls) == 1:
            raise _conflict()
        return real_run(self)

    monkeypatch.setattr(gateway._Handling, "run", run_once_in_a_deadlock)
    raw = reply(None, "alice@example.org", "take 1", to=current_address(database, game_id, alice))
    database.dispatch = lambda name, args: None  # the test runs the task itself
    received = gateway.receive(database, raw, "inject")
    assert tasks.process_inbound(received.id) == "processed"
    assert len(calls) == 2 and game_row(database, game_id)["turn"] == 2
