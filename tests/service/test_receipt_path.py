"""Sealed-order receipts checked from the mail alone: an Elasta turn resolved by the service,
its result mail parsed back from the ``.eml`` file the service wrote, every receipt recomputed
with nothing but ``hashlib`` and what the mail says (and with ``pbem receipt verify``). Orders
and salts stay sealed before the turn resolves, and for good when a resignation ends the turn.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from email.message import EmailMessage
from pathlib import Path

from click.testing import CliRunner

from service.cli import main
from service.db import Database
from tests.service.conftest import Client

HEADER = re.compile(r"^Sealed orders of game (\d+), turn (\d+), revealed:$", re.M)
ENTRY = re.compile(r"^  (.+) \(seat (\d+)\): (.+)\n    salt (\w+)\n    receipt (\w+)$", re.M)


def mails(database: Database, kind: str) -> list[tuple[Path, EmailMessage]]:
    """The ``.eml`` files the default sender wrote, parsed by the stdlib, of one kind."""
    found = []
    for path in sorted(database.settings.mail_dir.glob(f"*-{kind}.eml")):
        message = email.message_from_bytes(
            path.read_bytes(), _class=EmailMessage, policy=email.policy.default
        )
        assert isinstance(message, EmailMessage)
        assert not message.defects
        found.append((path, message))
    return found


def plain(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def all_mail_text(database: Database) -> str:
    return "\n".join(
        path.read_text(errors="replace") + plain(message) for path, message in mails(database, "*")
    )


def start_elasta(alice: Client, bob: Client) -> int:
    data = {"game": "elasta", "seats": [alice.id, bob.id]}
    return int(alice.ok("POST", "/games", data, status=201)["game"]["id"])


def test_a_resolved_sealed_turn_mails_every_receipt_checkable_from_the_mail_alone(
    alice: Client, bob: Client, database: Database, tmp_path: Path
) -> None:
    game_id = start_elasta(alice, bob)
    path = f"/games/{game_id}"
    given = {}
    for seat, (player, orders) in enumerate(
        [(alice, "0 1 2 3 4 5 6 7"), (bob, "h0 g1 f2 e3 d4 c5 b6 a7")]
    ):
        player.ok("POST", path + "/moves", {"turn": 1, "text": orders})
        given[seat] = player.ok("GET", path)["game"].get("receipt")
    assert given[0] is None or len(given[0]) == 64  # the turn resolved on the second submit

    results = mails(database, "turn_resolved")
    assert len(results) == 2  # one to each seat
    for eml, message in results:
        text = plain(message)
        header = HEADER.search(text)
        assert header is not None, text
        assert (int(header[1]), int(header[2])) == (game_id, 1)
        entries = ENTRY.findall(text)
        assert [(name, seat) for name, seat, *_ in entries] == [("White", "0"), ("Black", "1")]
        for _name, seat, orders, salt, receipt in entries:
            # The recipe the mail states: SHA-256 of GAME:TURN:SEAT:ORDERS:SALT.
            again = hashlib.sha256(f"{game_id}:1:{seat}:{orders}:{salt}".encode()).hexdigest()
            assert again == receipt
        assert "sha256sum" in text and "pbem receipt verify" in text

        checked = CliRunner().invoke(main, ["receipt", "verify", str(eml)])
        assert checked.exit_code == 0, checked.output
        assert checked.output.splitlines()[-1] == "OK: all 2 receipts match their orders and salts"

    record = alice.ok("GET", path + "/record")
    receipts = {o["seat"]: o["receipt"] for o in record["orders"] if o["turn"] == 1}
    text = plain(results[0][1])
    assert all(receipt in text for receipt in receipts.values())

    tampered = tmp_path / "tampered.eml"
    eml_text = results[0][0].read_text()
    first_orders = ENTRY.findall(text)[0][2]
    tampered.write_text(eml_text.replace(f": {first_orders}\n", ": 76543210\n", 1))
    changed = CliRunner().invoke(main, ["receipt", "verify", str(tampered)])
    assert changed.exit_code == 1, changed.output
    assert "MISMATCH" in changed.output


def test_orders_and_salts_stay_sealed_before_resolution_and_after_a_resignation(
    alice: Client, bob: Client, database: Database
) -> None:
    game_id = start_elasta(alice, bob)
    path = f"/games/{game_id}"
    alice.ok("POST", path + "/moves", {"turn": 1, "text": "7 6 5 4 3 2 1 0"})
    salt_query = alice.ok("GET", path + "/record")
    (own,) = [o for o in salt_query["orders"] if o["turn"] == 1]
    assert own["receipt_salt"] is None  # not even to its author before resolution
    before = all_mail_text(database)
    assert "76543210" not in before and "Sealed orders of game" not in before

    bob.ok("POST", path + "/resign")
    after = all_mail_text(database)
    assert "76543210" not in after and "Sealed orders of game" not in after
    seen_by_bob = bob.ok("GET", path + "/record")
    assert [o for o in seen_by_bob["orders"] if o["seat"] == 0] == []


def test_a_sealed_turn_that_ends_the_game_reveals_its_receipts_in_the_game_over_mail(
    alice: Client, bob: Client, database: Database
) -> None:
    data = {"game": "duel", "options": {"target": "1"}, "seats": [alice.id, bob.id]}
    game_id = int(alice.ok("POST", "/games", data, status=201)["game"]["id"])
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "3"})
    bob.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "1"})
    (over, _), *_ = mails(database, "game_over")
    for path, _message in mails(database, "game_over"):
        checked = CliRunner().invoke(main, ["receipt", "verify", str(path)])
        assert checked.exit_code == 0, checked.output
        assert checked.output.splitlines()[-1] == "OK: all 2 receipts match their orders and salts"
    assert over.name.endswith("-game_over.eml")
