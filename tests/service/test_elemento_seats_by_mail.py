"""issue 21, point 8, walked through the service: an Elemento game's first mails name each
player's seat, and the seat that moves first (ELE-5; the drawn turn order of ELE-13) is the
one whose mail says so; seat names never read as a turn order ("You play Player 1" while
Player 3 moved first)."""

from __future__ import annotations

import re

import pytest

from service import games, players
from service.db import Database
from tests.service.gateway_kit import latest, mails, text_of

NAMES = ("Ann", "Ben", "Cat", "Dan")


def start(database: Database, count: int) -> int:
    with database.transaction() as session:
        seated = []
        for name in NAMES[:count]:
            address = f"{name.lower()}@example.org"
            player, _ = players.create(session, None, {"name": name, "emails": [address]})
            seated.append(player)
        data = {"game": "elemento", "seats": [p.id for p in seated]}
        return games.create(session, seated[0], data).id


@pytest.mark.parametrize("count", [2, 3, 4])
def test_each_mail_names_the_seat_and_the_first_mover_is_told_so(
    database: Database, count: int
) -> None:
    game_id = start(database, count)
    seats: dict[str, str] = {}
    first: list[str] = []
    for name in NAMES[:count]:
        address = f"{name.lower()}@example.org"
        assert len(mails(database, address, "game_started")) == 1
        text = " ".join(text_of(latest(database, address, game_id)).split())
        seat = re.search(r"You play (\w+) against", text)
        assert seat is not None, text
        seats[name] = seat.group(1)
        assert "Player " not in text  # no numbered seats
        if "You play first." in text:
            first.append(name)
        if count > 2:
            order = re.search(r"Turn order \(drawn, ELE-13\): ([\w, ]+); (\w+) first", text)
            assert order is not None, text
            assert order.group(2) == order.group(1).split(", ")[0]
            drawn = order.group(1).split(", ")
            assert sorted(drawn) == sorted(("North", "East", "South", "West")[:count])
            assert f"{drawn[0]} to move" in text
            assert "Place with L (light) or D (dark) first: LF@c1, DW@d1" in text
        else:
            assert "Light to move" in text
            assert "Place your own colour by element: F@c1" in text
    expected = ("Light", "Dark") if count == 2 else ("North", "East", "South", "West")[:count]
    assert [seats[name] for name in NAMES[:count]] == list(expected)
    assert len(first) == 1
    mover = first[0]
    text = " ".join(text_of(latest(database, f"{mover.lower()}@example.org", game_id)).split())
    assert f"{seats[mover]} to move" in text
    if count > 2:
        assert f"; {seats[mover]} first" in text
    else:
        assert seats[mover] == "Light"  # ELE-5: Light starts
