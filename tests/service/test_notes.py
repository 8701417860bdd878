"""Issue 25, 2: a player's private note on a game, by API; its author alone ever sees it."""

from __future__ import annotations

from sqlalchemy import select

from service.db import Database
from service.models import Base
from tests.service.conftest import Client
from tests.service.test_api import start

SECRET = "Plan: sacrifice on the left, bluff with 7 -- zq8x"


def test_a_note_is_its_authors_alone_and_stored_nowhere_else(
    database: Database, admin: Client, alice: Client, bob: Client, anonymous: Client
) -> None:
    game = start(alice, bob, "countdown")["id"]
    path = f"/games/{game}/note"
    assert alice.ok("GET", path) == {"game_id": game, "note": None}
    assert alice.ok("PUT", path, {"text": f"  {SECRET}\n"}) == {"game_id": game, "note": SECRET}
    alice.ok("POST", f"/games/{game}/moves", {"turn": 1, "text": "take 2"})
    assert alice.ok("GET", path)["note"] == SECRET
    assert bob.ok("GET", path)["note"] is None
    assert admin.request("PUT", path, json={"text": "mine"}).status_code == 403

    too_long = alice.request("PUT", path, json={"text": "x" * 2001})
    assert too_long.status_code == 400 and "2000" in too_long.get_data(as_text=True)
    assert alice.ok("GET", path)["note"] == SECRET

    seen_by_others = [
        bob.get(f"/games/{game}"),
        bob.get(f"/games/{game}/record"),
        bob.get(f"/games/{game}/record.txt"),
        anonymous.get(f"/games/{game}/spectate"),
        alice.get(f"/games/{game}/record"),  # the record is nobody's notes, the author's neither
        alice.get(f"/games/{game}"),
        bob.get("/games?filter=mine"),
    ]
    for response in seen_by_others:
        assert response.status_code == 200
        assert "zq8x" not in response.get_data(as_text=True)

    with database.transaction() as session:
        for table in Base.metadata.sorted_tables:
            if table.name == "game_notes":
                continue
            for row in session.execute(select(table)):
                assert "zq8x" not in repr(tuple(row)), table.name

    for mail in database.settings.mail_dir.glob("*.eml"):
        assert b"zq8x" not in mail.read_bytes(), mail.name

    assert alice.ok("PUT", path, {"text": ""})["note"] is None
    assert alice.ok("GET", path)["note"] is None
