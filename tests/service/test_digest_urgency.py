"""Issue 25, 4: the digest and ``filter=waiting`` put the games waiting for the reader first,
least time left first, flag those under 24 hours and link to the next game to play."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service import digest, schedule
from service.db import Database
from tests.service.conftest import Client
from tests.service.mails import parsed
from tests.service.test_api import start
from tests.service.test_outbound import digest_reader, outbox

URGENT_LINE = "Less than 24 hours left to play in this game."


def test_the_digest_and_the_waiting_list_put_the_most_urgent_game_first(
    database: Database, admin: Client, alice: Client, bob: Client
) -> None:
    digest_reader(alice)
    week = {"days": 7}
    played = start(alice, bob, time_control=week)["id"]
    alice.ok("POST", f"/games/{played}/moves", {"turn": 1, "text": "3"})  # waits for bob only
    later = start(alice, bob, time_control=week)["id"]
    soon = start(alice, bob, time_control=week)["id"]
    created = min(row.created_at for row in outbox(database) if row.player_id == alice.id)
    first_morning = digest.morning(created, "Asia/Tokyo", database.settings.digest_hour)
    next_morning = first_morning + timedelta(days=1, minutes=1)
    for game, left in ((later, timedelta(days=3)), (soon, timedelta(hours=5))):
        deadline = (next_morning + left).isoformat().replace("+00:00", "Z")
        admin.ok("PATCH", f"/games/{game}/deadline", {"deadline": deadline})

    assert schedule.sweep(database, next_morning)["digests"] == 1
    sent = [row for row in outbox(database) if row.player_id == alice.id and row.kind == "digest"]
    parts = {
        part.get_content_type(): part.get_content()
        for part in parsed(sent[0]).walk()
        if not part.is_multipart()
    }
    text, html = parts["text/plain"], parts["text/html"]
    places = [text.index(f"Duel #{game}:") for game in (soon, later, played)]
    assert places == sorted(places)
    assert text.count(URGENT_LINE) == 1
    assert places[0] < text.index(URGENT_LINE) < places[1]
    head = text[: places[0]]
    assert "Next game to play (the most urgent):" in head
    link = head.split("Next game to play (the most urgent):")[1].split()[0]
    assert "/play/" in link
    assert html.count(URGENT_LINE) == 1 and f'href="{link}"' in html

    in_two_hours = (datetime.now(UTC) + timedelta(hours=2)).isoformat().replace("+00:00", "Z")
    admin.ok("PATCH", f"/games/{soon}/deadline", {"deadline": in_two_hours})
    waiting = alice.ok("GET", "/games?filter=waiting")["games"]
    assert [(item["id"], item["urgent"]) for item in waiting] == [(soon, True), (later, False)]
    assert "urgent" not in alice.ok("GET", "/games?filter=mine")["games"][0]
