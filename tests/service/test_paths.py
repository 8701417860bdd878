"""What one part of the service produced, read back by what reads it: every mail kind the
sender wrote parsed by the stdlib ``email`` package with no defects, every deadline ``.ics``
read by the ``icalendar`` package, ``record.txt`` replayed through the engine to the game's
position, ``pbem league standings`` as text, CSV and JSON telling the same table."""

from __future__ import annotations

import csv
import email
import email.policy
import io
import json
import random
import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import icalendar
import pytest
from click.testing import CliRunner

import engine
from engine import State
from service import schedule
from service.cli import main
from service.db import Database
from tests.service.conftest import Client, new_player
from tests.service.test_api import start
from tests.service.test_leagues_simulation import make_league, run_to_the_end
from tests.service.test_outbound import AUTOMATIC, digest_reader, play_every_kind
from tests.service.test_schedule import turn_row


def written(database: Database) -> list[tuple[str, EmailMessage]]:
    """Every ``.eml`` the default sender wrote, parsed as a mail client would."""
    found = []
    for path in sorted(database.settings.mail_dir.glob("*.eml")):
        kind = path.stem.rsplit("-", 1)[1]  # NNNNNNNN[-game-N]-ADDRESS-KIND
        message = email.message_from_bytes(
            path.read_bytes(), _class=EmailMessage, policy=email.policy.default
        )
        assert isinstance(message, EmailMessage)
        found.append((kind, message))
    return found


def defects(message: EmailMessage) -> list[str]:
    """Defects of every part and of every header (headers register theirs when read)."""
    found = []
    for part in message.walk():
        for name, value in part.items():
            found += [f"{name}: {defect!r}" for defect in getattr(value, "defects", ())]
        found += [repr(defect) for defect in part.defects]
        if not part.is_multipart():
            part.get_content()
    return found


# -- every mail kind -------------------------------------------------------------------------


def test_every_mail_kind_the_service_wrote_parses_back_without_defects(
    database: Database, admin: Client, alice: Client, bob: Client
) -> None:
    play_every_kind(database, admin, alice, bob)
    digest_reader(bob)
    game = start(alice, bob)["id"]
    alice.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "3"})
    schedule.sweep(database, turn_row(database, game).started_at + timedelta(days=2))
    mails = written(database)
    kinds = {kind for kind, _ in mails}
    assert kinds >= AUTOMATIC | {"error_reply", "help", "digest"}
    for kind, message in mails:
        assert not defects(message), (kind, defects(message))
        assert message.get_body(preferencelist=("plain",)) is not None, kind
        assert message.get_body(preferencelist=("html",)) is not None, kind
        assert "\n" not in str(message["Subject"]), kind


# -- deadline events ----------------------------------------------------------------------


def test_every_deadline_ics_is_read_by_icalendar_at_the_turns_deadline(
    database: Database, admin: Client, alice: Client, bob: Client
) -> None:
    game = start(alice, bob, time_control={"days": 3})["id"]
    alice.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "3"})
    deadline = turn_row(database, game).deadline
    assert deadline is not None
    schedule.sweep(database, deadline - timedelta(hours=1))  # a reminder
    read = 0
    for kind, message in written(database):
        for part in message.walk():
            if part.get_content_type() != "text/calendar":
                continue
            assert str(part.get_filename()).endswith(".ics")
            calendar = icalendar.Calendar.from_ical(part.get_content())
            (event,) = calendar.walk("VEVENT")
            assert str(event["UID"]) == f"game-{game}-turn-1@{database.settings.mail_domain}"
            start_at = event.decoded("DTSTART")
            assert start_at.utcoffset() == timedelta(0), kind
            wanted = deadline.replace(tzinfo=None, microsecond=0)  # iCalendar has seconds
            assert start_at.replace(tzinfo=None) == wanted, kind
            assert str(event["SUMMARY"]), kind
            read += 1
    assert read >= 3  # game_started to both players, the reminder


# -- record.txt ---------------------------------------------------------------------------

TAG = re.compile(r'^\[(\w[\w ]*) "(.*)"\]$')
TURN = re.compile(r"(?:^|\s)\d+\. ")


def replay_text_record(text: str) -> tuple[dict[str, str], State]:
    """Read a ``record.txt`` as a player would: tags, then numbered turns whose steps are
    joined with ``|`` (chance outcomes in braces, moves, a sealed turn's orders seat by seat);
    replay it through the engine."""
    head, _, body = text.partition("\n\n")
    tags = dict(TAG.match(line).groups() for line in head.splitlines())  # type: ignore[union-attr]
    options = dict(item.split("=", 1) for item in tags["Options"].split())
    counts = engine.game_class(tags["Game"]).player_counts
    seat_tags = set(tags) & {
        seat
        for count in counts
        for seat in engine.new_game(tags["Game"], options, count).seat_names
    }
    state = engine.new_game(tags["Game"], options, len(seat_tags)).initial_state()
    movetext = " ".join(body.split()).removesuffix(tags["Result"]).strip()
    for turn in filter(None, (t.strip() for t in TURN.split(movetext))):
        for step in (piece.strip() for piece in turn.split(" | ")):
            if step.startswith("{") and step.endswith("}"):
                state = state.apply_chance(step[1:-1]).state
            elif state.simultaneous:
                seat = next(s for s in state.to_act if s not in state.submitted())
                state = state.submit(seat, step)
                if set(state.submitted()) >= set(state.to_act):
                    state = state.resolve().state
            else:
                state = state.play(state.to_act[0], step).state
    return tags, state


def play_at_random(players: list[Client], name: str, steps: int, seed: int) -> int:
    rng = random.Random(seed)
    data = {"game": name, "seats": [p.id for p in players]}
    game = players[0].ok("POST", "/games", data, status=201)["game"]
    path = f"/games/{game['id']}"
    rules = engine.new_game(name, game["options"], len(players))
    for _ in range(steps):
        record = players[0].ok("GET", path + "/record")
        if record["status"] != "active":
            break
        state = rules.parse_position(record["position"])
        turn = players[0].ok("GET", path)["game"]["turn"]
        for seat in state.to_act:
            text = state.format(state.random_action(seat, rng))
            players[seat].ok("POST", path + "/moves", {"turn": turn, "text": text})
    return int(game["id"])


@pytest.mark.parametrize(
    ("name", "count"),
    [("epaminondas", 2), ("anti-grid", 2), ("elasta", 2), ("nelaxtam", 2), ("elemento", 3)],
)
def test_record_txt_replays_through_the_engine_to_the_games_position(
    admin: Client, name: str, count: int
) -> None:
    players = [new_player(admin, who) for who in ("Ann", "Ben", "Cy", "Di")[:count]]
    game = play_at_random(players, name, steps=12, seed=len(name))
    players[1].ok("POST", f"/games/{game}/resign")
    text = admin.client.get(f"/api/v1/games/{game}/record.txt").get_data(as_text=True)
    record = admin.ok("GET", f"/games/{game}/record")
    tags, state = replay_text_record(text)
    assert state.position() == record["position"]
    assert tags["Result"] == record["result"]["result"]
    assert tags["Id"] == str(game)


# -- league outputs -----------------------------------------------------------------------


def test_pbem_league_standings_text_csv_and_json_tell_the_same_table(
    database: Database, tmp_path: Path
) -> None:
    league = make_league(database, 4, "round_robin")
    run_to_the_end(database, league, seed=3)
    env = {"DATABASE_URL": database.settings.database_url, "PBEM_VAR_DIR": str(tmp_path)}

    def pbem(*args: str) -> str:
        result = CliRunner().invoke(main, ["league", "standings", str(league), *args], env=env)
        assert result.exit_code == 0, result.output
        return result.output

    document: dict[str, Any] = json.loads(pbem("--json"))
    rows = list(csv.DictReader(io.StringIO(pbem("--csv"))))
    table = pbem().splitlines()
    expected = [(str(r["rank"]), r["player"]["name"], r["points"]) for r in document["rows"]]
    assert [(row["rank"], row["player"], float(row["points"])) for row in rows] == [
        (rank, who, float(points)) for rank, who, points in expected
    ]
    assert len(table) == len(expected) + 1
    for line, (_, who, _) in zip(table[1:], expected, strict=True):
        assert who in line
