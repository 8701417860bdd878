"""Finding 6: a refused mail is answered only at a registered address of the player its reply
address names, never at the address its From names: anyone can write any From, and the
service must not be made to mail a third party."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from service.db import Database
from service.mail import authentication, gateway
from service.models import Outbox
from tests.service.gateway_kit import current_address, inbound, make_game, reply

ALICE = "alice@example.org"
VICTIM = "victim@third-party.example"


@pytest.fixture(autouse=True)
def no_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(authentication, "dns_txt", lambda name, timeout=5: None)


def addressees(database: Database) -> set[str]:
    with database.transaction() as session:
        return set(session.scalars(select(Outbox.to_address).where(Outbox.kind != "your_turn")))


def forgeries(database: Database) -> dict[str, tuple[bytes, str, str | None]]:
    """(raw, channel, envelope sender) of each way a stranger might make us write to VICTIM."""
    game_id, alice, _ = make_game(database)
    real = current_address(database, game_id, alice)
    local, _, domain = real.partition("@")
    forged = local[:-3] + ("aaa" if not local.endswith("aaa") else "bbb") + "@" + domain
    return {
        "a forged reply address": (reply(None, VICTIM, "take 1", to=forged), "inject", None),
        "an address that is no reply address": (
            reply(None, VICTIM, "can I play?", to="info@pbem.localhost"),
            "inject",
            None,
        ),
        "Alice's reply address from a stranger": (
            reply(None, VICTIM, "take 1", to=real),
            "inject",
            None,
        ),
        "Alice's From with no signature, straight to our listener": (
            reply(None, ALICE, "take 1", to=real),
            "smtp",
            VICTIM,
        ),
        "a machine's bounce to Alice's reply address": (
            reply(None, VICTIM, "take 1", to=real, headers={"Auto-Submitted": "auto-replied"}),
            "inject",
            None,
        ),
    }


def test_no_refusal_is_mailed_to_a_from_that_is_not_the_players(database: Database) -> None:
    for name, (raw, channel, envelope) in forgeries(database).items():
        received = gateway.receive(database, raw, channel, (), envelope)
        # Alice's own From, unsigned: held, and only Alice's registered mailbox is asked
        # to confirm it (issue 22); nothing is played, and the envelope sender hears nothing.
        expected = ("held",) if name.startswith("Alice's From") else ("rejected", "ignored")
        assert inbound(database, received.id).status in expected, name
    assert VICTIM not in addressees(database)
    assert addressees(database) <= {ALICE, "bob@example.org"}


def test_a_failure_on_our_side_is_apologised_for_to_the_player_not_the_from(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, alice, _ = make_game(database)
    raw = reply(None, VICTIM, "take 1", to=current_address(database, game_id, alice))

    def broken(*args: object) -> None:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(gateway._Handling, "run", broken)
    received = gateway.receive(database, raw, "inject", ())
    assert inbound(database, received.id).status == "failed"
    assert VICTIM not in addressees(database)
    assert ALICE in addressees(database)
