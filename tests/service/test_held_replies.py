"""Unsigned replies are held until the registered mailbox confirms them
(``service/mail/confirmation.py``), and refusals speak plainly.

Mail goes through the real SMTP listener on loopback (aiosmtpd, ``pbem mail smtpd``), which
checks DKIM itself; keys come from a local table instead of DNS. The confirmation link is
driven through the Flask app; the opponent's view through the API."""

from __future__ import annotations

import os
import re
import smtplib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service import games, players
from service.db import Database
from service.leagues import leagues
from service.mail import authentication, gateway
from service.mail.links import settings_token
from service.mail.models import HeldReply, InboundMessage
from service.mail.smtpd import Listener
from service.models import Game, Outbox, Player
from tests.browser import (
    DESKTOP_WIDTH,
    PHONE_WIDTHS,
    assert_fits,
    axe_violations,
    browser,  # noqa: F401  (a fixture)
    server,  # noqa: F401  (a fixture)
)
from tests.service.gateway_kit import (
    current_address,
    dkim_key,
    game_row,
    latest,
    mails,
    reply,
    text_of,
)
from tests.service.test_league_invitations_by_mail import invite, league_address, status_of
from tests.service.test_sender_authentication import signed

ALICE, BOB, MALLORY = "alice@example.org", "bob@example.org", "mallory@evil.test"
GENUINE, GENUINE_RECORD = dkim_key()


@pytest.fixture(autouse=True)
def local_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """example.org publishes the genuine key under selector ``mail``; nothing else exists."""

    def txt(name: Any, timeout: int = 5) -> bytes | None:
        given = name if isinstance(name, bytes) else str(name).encode()
        return GENUINE_RECORD if given.rstrip(b".") == b"mail._domainkey.example.org" else None

    monkeypatch.setattr(authentication, "dns_txt", txt)


@pytest.fixture
def listener(database: Database) -> Iterator[Listener]:
    running = Listener(database, "127.0.0.1", 0)
    running.start()
    yield running
    running.stop()


class Table:
    """Alice and Bob (with API tokens) and a game between them, with mail over SMTP."""

    def __init__(self, database: Database, listener: Listener, game: str = "countdown") -> None:
        self.database, self.listener = database, listener
        with database.transaction() as session:
            seated, self.tokens = [], {}
            for name in ("Alice", "Bob"):
                address = f"{name.lower()}@example.org"
                player = players.by_address(session, address)
                if player is None:
                    player, self.tokens[name] = players.create(
                        session, None, {"name": name, "emails": [address]}
                    )
                seated.append(player)
            options = {"pile": "7"} if game == "countdown" else {}
            data = {"game": game, "options": options, "seats": [p.id for p in seated]}
            self.id = games.create(session, seated[0], data).id
            self.alice, self.bob = seated[0].id, seated[1].id

    def to_alice(self) -> str:
        return current_address(self.database, self.id, self.alice)

    def send(self, raw: bytes, to: str, envelope_from: str = ALICE) -> None:
        with smtplib.SMTP(self.listener.hostname, self.listener.port, timeout=60) as client:
            client.sendmail(envelope_from, [to], raw)

    def unsigned(self, typed: str, sender: str = ALICE) -> None:
        self.send(reply(None, sender, typed, to=self.to_alice()), self.to_alice(), sender)

    def signed(self, typed: str) -> None:
        raw = signed(reply(None, ALICE, typed, to=self.to_alice()), GENUINE)
        self.send(raw, self.to_alice())

    def turn(self) -> int:
        return int(game_row(self.database, self.id)["turn"])

    def asked(self) -> Any:
        """The latest confirmation mail to Alice."""
        found = mails(self.database, ALICE, "confirm_reply")
        assert found, "no confirmation mail to Alice"
        return latest(self.database, ALICE, self.id)

    def say_yes(self, confirmation: Any, sender: str = ALICE, typed: str = "yes") -> None:
        to = str(confirmation["Reply-To"])
        self.send(reply(confirmation, sender, typed), to, sender)

    def holds(self) -> list[HeldReply]:
        with self.database.transaction() as session:
            return list(session.scalars(select(HeldReply).order_by(HeldReply.id)))

    def last_inbound(self) -> InboundMessage:
        with self.database.transaction() as session:
            query = select(InboundMessage).order_by(InboundMessage.id.desc())
            found = session.scalars(query).first()
            assert found is not None
            return found

    def mail_log(self) -> list[tuple[str, str]]:
        """(address, kind) of every mail written about this game, in order."""
        with self.database.transaction() as session:
            query = select(Outbox.to_address, Outbox.kind).where(Outbox.game_id == self.id)
            return [(row[0], row[1]) for row in session.execute(query.order_by(Outbox.id))]


def _link_path(confirmation: Any) -> str:
    found = re.search(r"https?://[^/\s]+(/confirm/[a-z2-7]+)", text_of(confirmation))
    assert found, text_of(confirmation)
    return found.group(1)


# -- held, then confirmed ---------------------------------------------------------------------


def test_an_unsigned_reply_from_the_registered_address_is_held_and_asked_about(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    bobs = len(mails(database, BOB))
    table.unsigned("take 1")
    assert table.turn() == 1, "an unsigned reply was played without confirmation"
    row = table.last_inbound()
    assert row.status == "held" and "no DKIM signature" in (row.result or ""), row.result
    assert len(mails(database, ALICE, "confirm_reply")) == 1
    confirmation = table.asked()
    text = " ".join(text_of(confirmation).split())
    assert "Alice, a reply to" in text and "take 1" in text and 'with "yes"' in text
    assert str(confirmation["Reply-To"]) != table.to_alice()
    assert _link_path(confirmation)
    assert len(mails(database, BOB)) == bobs, "Bob heard of a move that was not played"
    [held] = table.holds()
    assert held.state == "held" and held.address == ALICE
    assert re.fullmatch("[0-9a-f]{64}", held.code_hash), "the code is stored hashed"


def test_yes_to_the_confirmation_plays_the_held_move_exactly_once(
    database: Database, listener: Listener
) -> None:
    signed_table = Table(database, listener)
    before = len(signed_table.mail_log())
    signed_table.signed("take 1")
    assert signed_table.turn() == 2
    authenticated_mails = signed_table.mail_log()[before:]

    table = Table(database, listener)
    table.unsigned("take 1")
    confirmation = table.asked()
    before = len(table.mail_log())
    table.say_yes(confirmation)
    assert table.turn() == 2
    assert table.mail_log()[before:] == authenticated_mails, "not played as if signed"
    assert table.last_inbound().status == "processed"
    table.say_yes(confirmation, typed="Yes, confirm")  # a second yes: a new message
    assert table.turn() == 2, "a second yes played it again"
    assert len(table.mail_log()) == before + len(authenticated_mails)
    [held] = table.holds()
    assert held.state == "played"


def test_a_player_who_wants_no_mail_is_still_asked_to_confirm(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    with database.transaction() as session:
        players.update(session, session.get_one(Player, table.alice), {"notify": "none"})
    table.unsigned("take 1")
    table.say_yes(table.asked())
    assert table.turn() == 2


def test_the_same_held_reply_arriving_twice_is_held_once(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    raw = reply(None, ALICE, "take 1", to=table.to_alice())
    table.send(raw, table.to_alice())
    table.send(raw, table.to_alice())  # an MTA retry: the same Message-ID
    assert len(table.holds()) == 1
    assert len(mails(database, ALICE, "confirm_reply")) == 1


def test_a_newer_held_reply_replaces_the_older_and_says_so(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    table.unsigned("take 1")
    first = table.asked()
    table.unsigned("take 2")
    second = table.asked()
    assert "replaces the reply you sent earlier" in " ".join(text_of(second).split())
    assert [h.state for h in table.holds()] == ["replaced", "held"]
    table.say_yes(first)
    assert table.turn() == 1, "a replaced reply was played"
    assert "replaced" in (table.last_inbound().result or "")
    table.say_yes(second)
    assert table.turn() == 2
    assert game_row(database, table.id)["state"]["pile"] == 5


def test_the_signed_link_shows_on_get_and_confirms_on_post(
    app: Flask, database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    table.unsigned("take 1")
    path = _link_path(table.asked())
    client: FlaskClient = app.test_client()
    for _ in range(3):  # mail scanners fetch links: a GET changes nothing
        shown = client.get(path)
        assert shown.status_code == 200
        page = shown.get_data(as_text=True)
        assert "take 1" in page and 'method="post"' in page and "Alice" in page
    assert table.turn() == 1
    done = client.post(path)
    assert done.status_code == 200 and "your reply was played" in done.get_data(as_text=True)
    assert table.turn() == 2
    again = client.post(path).get_data(as_text=True)
    assert "already confirmed and played" in again and "nothing more was done" in again
    assert table.turn() == 2
    assert client.get(path[:-3] + "aaa").status_code == 404, "an altered link opened"


def test_a_confirmation_that_fails_on_our_side_is_a_page_saying_so_and_keeps_the_hold(
    app: Flask, database: Database, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never a 500 for a player: the failed attempt rolls back, and the link works again."""
    table = Table(database, listener)
    table.unsigned("take 1")
    path = _link_path(table.asked())
    client: FlaskClient = app.test_client()

    def broken(*args: Any) -> str:
        raise RuntimeError("the database went away")

    with monkeypatch.context() as patched:
        patched.setattr(gateway, "confirm_held", broken)
        failed = client.post(path)
    assert failed.status_code == 503
    assert "Nothing was played" in failed.get_data(as_text=True)
    assert table.turn() == 1 and [h.state for h in table.holds()] == ["held"]
    assert "your reply was played" in client.post(path).get_data(as_text=True)
    assert table.turn() == 2


def test_confirming_after_the_turn_moved_on_plays_nothing_and_says_why(
    app: Flask, database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    table.unsigned("take 1")
    confirmation = table.asked()
    table.signed("take 2")  # Alice moves another way meanwhile
    assert table.turn() == 2
    pile = game_row(database, table.id)["state"]["pile"]
    page = app.test_client().get(_link_path(confirmation)).get_data(as_text=True)
    assert "it is turn 2 now" in page and 'method="post"' not in page
    table.say_yes(confirmation)
    assert table.turn() == 2 and game_row(database, table.id)["state"]["pile"] == pile
    answer = " ".join(text_of(latest(database, ALICE)).split())
    assert "your held reply was for turn 1" in answer and "it is turn 2 now" in answer
    assert "not played" in answer
    assert [h.state for h in table.holds()] == ["expired"]


# -- what is never played ---------------------------------------------------------------------


def test_an_unsigned_reply_never_plays_without_confirmation(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    for typed in ("take 1", "take 2", "take 1\nresign"):
        table.unsigned(typed)
        assert table.turn() == 1
    assert game_row(database, table.id)["status"] == "active"
    assert [h.state for h in table.holds()] == ["replaced", "replaced", "held"]


def test_a_broken_dkim_signature_is_refused_not_held(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    raw = signed(reply(None, ALICE, "take 1", to=table.to_alice()), GENUINE)
    table.send(raw + b"P.S. take 2\r\n", table.to_alice())  # the body changed after signing
    assert table.turn() == 1
    row = table.last_inbound()
    assert row.status == "rejected" and "does not verify" in (row.result or ""), row.result
    assert not table.holds() and not mails(database, ALICE, "confirm_reply")
    assert mails(database, ALICE, "error_reply")


def test_a_strangers_yes_does_nothing(database: Database, listener: Listener) -> None:
    table = Table(database, listener)
    table.unsigned("take 1")
    confirmation = table.asked()
    for stranger in (MALLORY, BOB):
        table.say_yes(confirmation, sender=stranger)
        assert table.turn() == 1
        assert table.last_inbound().status == "rejected"
    assert not mails(database, MALLORY), "a stranger was answered"
    assert [h.state for h in table.holds()] == ["held"]
    table.say_yes(confirmation)  # Alice herself still can
    assert table.turn() == 2


def test_a_yes_to_a_forged_confirmation_address_does_nothing(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    table.unsigned("take 1")
    confirmation = table.asked()
    forged = str(confirmation["Reply-To"]).replace("play+", "play+a", 1)
    table.send(reply(confirmation, ALICE, "yes", to=forged), forged)
    assert table.turn() == 1 and [h.state for h in table.holds()] == ["held"]


def test_the_held_move_is_not_visible_to_the_opponent(
    app: Flask, database: Database, listener: Listener
) -> None:
    table = Table(database, listener, "duel")
    bob = {"Authorization": f"Bearer {table.tokens['Bob']}"}
    client = app.test_client()
    seen_before = client.get(f"/api/v1/games/{table.id}", headers=bob).get_data(as_text=True)
    page_before = client.get(f"/games/{table.id}").get_data(as_text=True)
    bobs = mails(database, BOB)
    table.unsigned("3")
    assert table.last_inbound().status == "held"
    seen_after = client.get(f"/api/v1/games/{table.id}", headers=bob).get_data(as_text=True)
    assert seen_after == seen_before, "Bob's view of the game changed"
    assert client.get(f"/games/{table.id}").get_data(as_text=True) == page_before
    assert [m.id for m in mails(database, BOB)] == [m.id for m in bobs]
    with database.transaction() as session:
        assert session.get_one(Game, table.id).turn == 1


# -- refusals speak plainly --------------------------------------------------------------------


def test_a_refusal_names_the_player_offers_no_api_and_links_signed_pages(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    raw = signed(reply(None, ALICE, "take 1", to=table.to_alice()), GENUINE)
    table.send(raw + b"P.S. take 3\r\n", table.to_alice())
    answer = latest(database, ALICE)
    text = " ".join(text_of(answer).split())
    assert "Alice" in text and "Sorry, alice" not in text
    assert "not played" in text and "send it again straight from your own mailbox" in text
    for advice in ("API", "api/v1", "PATCH", "token"):
        assert advice not in text, f"a mail-only player was told about {advice!r}"
    secret = database.settings.secret()
    assert f"/mail/{settings_token(secret, table.alice)}" in text
    assert f"/games/{table.id}" in text
    assert "Play in your browser: " in text_of(answer)


def test_a_reply_from_another_address_is_answered_to_the_player_by_name(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    table.unsigned("take 1", sender=BOB)
    assert table.turn() == 1 and table.last_inbound().status == "rejected"
    text = " ".join(text_of(latest(database, ALICE)).split())
    assert "Sorry, Alice" in text and "is not one of your addresses" in text
    assert f"/mail/{settings_token(database.settings.secret(), table.alice)}" in text
    assert f"/games/{table.id}" in text


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgresql"),
    reason="row locks are PostgreSQL's: SQLite serialises every transaction",
)
def test_racing_confirmations_play_the_held_reply_once(
    app: Flask, database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    table.unsigned("take 1")
    confirmation = table.asked()
    path = _link_path(confirmation)
    before = len(table.mail_log())

    def confirm(_: int) -> int:
        return int(app.test_client().post(path).status_code)

    with ThreadPoolExecutor(6) as pool:
        statuses = list(pool.map(confirm, range(6)))
    table.say_yes(confirmation)
    assert statuses == [200] * 6
    assert table.turn() == 2
    assert game_row(database, table.id)["state"]["pile"] == 6
    assert [h.state for h in table.holds()] == ["played"]
    assert len(table.mail_log()) - before == 2, table.mail_log()[before:]


def test_the_confirm_page_fits_phones_and_its_button_plays_the_held_reply(
    browser: Any,  # noqa: F811
    server: str,  # noqa: F811
    database: Database,
    listener: Listener,
) -> None:
    """In Chromium: the page a confirmation mail links fits 320 and 390 px and a desktop with
    no serious axe-core finding, before and after its button is pressed."""
    table = Table(database, listener)
    table.unsigned("take 1")
    page = browser.new_page()
    page.goto(server + _link_path(table.asked()))
    for stage in ("asked", "played"):
        for width in (*PHONE_WIDTHS, DESKTOP_WIDTH):
            page.set_viewport_size({"width": width, "height": 900})
            assert_fits(page, f"the confirm page ({stage}) at {width}px")
        found = axe_violations(page)
        assert not found, f"{stage}: " + "; ".join(map(str, found))
        if stage == "asked":
            assert table.turn() == 1, "opening the page played the reply"
            with page.expect_navigation():
                page.click("main button[type=submit]")
    assert "your reply was played" in page.inner_text("main")
    assert table.turn() == 2
    page.close()


# -- replies that change nothing need no confirmation ------------------------------------------


def test_an_unsigned_help_is_answered_at_once_and_nothing_is_held(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    helps = len(mails(database, ALICE, "help"))
    table.unsigned("help")
    assert table.last_inbound().status == "processed", table.last_inbound().result
    assert len(mails(database, ALICE, "help")) == helps + 1
    assert not table.holds() and not mails(database, ALICE, "confirm_reply")


@pytest.mark.parametrize("typed", ["board", "status", "Hi!\nboard\nThanks"])
def test_an_unsigned_board_is_answered_at_once_and_nothing_is_held(
    database: Database, listener: Listener, typed: str
) -> None:
    table = Table(database, listener)
    before = len(mails(database, ALICE))
    table.unsigned(typed)
    assert table.last_inbound().status == "processed", table.last_inbound().result
    assert len(mails(database, ALICE)) == before + 1
    assert "The board" in str(latest(database, ALICE, table.id)["Subject"])
    assert not table.holds() and not mails(database, ALICE, "confirm_reply")
    assert table.turn() == 1


def test_an_unsigned_preview_is_answered_at_once_and_stores_nothing(
    database: Database, listener: Listener
) -> None:
    table = Table(database, listener)
    table.unsigned("preview take 2")
    assert table.last_inbound().status == "processed", table.last_inbound().result
    assert not table.holds() and table.turn() == 1
    assert "nothing stored" in text_of(latest(database, ALICE, table.id))


@pytest.mark.parametrize("typed", ["help\ntake 1", "board\nresign", "board\nwait", "draw"])
def test_an_unsigned_reply_that_changes_anything_is_held_whole(
    database: Database, listener: Listener, typed: str
) -> None:
    table = Table(database, listener)
    helps = len(mails(database, ALICE, "help"))
    table.unsigned(typed)
    assert table.last_inbound().status == "held"
    assert [h.state for h in table.holds()] == ["held"]
    assert len(mails(database, ALICE, "help")) == helps, "part of a held reply was answered"
    assert table.turn() == 1 and game_row(database, table.id)["status"] == "active"


# -- an answer to a league invitation ----------------------------------------------------------


class Invited:
    """A league by Tess inviting these addresses, answered over SMTP."""

    def __init__(self, database: Database, listener: Listener, *addresses: str) -> None:
        self.database, self.listener = database, listener
        self.id = invite(database, *addresses)
        self.invitations = {address: latest(database, address) for address in addresses}

    def send(self, raw: bytes, to: str, sender: str) -> None:
        with smtplib.SMTP(self.listener.hostname, self.listener.port, timeout=60) as client:
            client.sendmail(sender, [to], raw)

    def answer(self, address: str, typed: str, *, sign: bool = False) -> None:
        invitation = self.invitations[address]
        raw = reply(invitation, address, typed)
        self.send(signed(raw, GENUINE) if sign else raw, str(invitation["Reply-To"]), address)

    def asked(self) -> Any:
        """The confirmation mail just sent to Alice."""
        assert mails(self.database, ALICE)[-1].kind == "confirm_reply"
        return latest(self.database, ALICE)

    def say_yes(self, confirmation: Any, sender: str = ALICE) -> None:
        to = str(confirmation["Reply-To"])
        self.send(reply(confirmation, sender, "yes"), to, sender)

    def status(self, address: str = ALICE) -> str:
        return status_of(self.database, self.id, address)

    def start(self) -> None:
        with self.database.transaction() as session:
            leagues.start(session, self.id, None)


def _holds(database: Database) -> list[HeldReply]:
    with database.transaction() as session:
        return list(session.scalars(select(HeldReply).order_by(HeldReply.id)))


def _last_inbound(database: Database) -> InboundMessage:
    with database.transaction() as session:
        found = session.scalars(select(InboundMessage).order_by(InboundMessage.id.desc())).first()
        assert found is not None
        return found


def test_an_unsigned_league_accept_is_held_and_the_confirmation_names_the_league(
    database: Database, listener: Listener
) -> None:
    league = Invited(database, listener, ALICE)
    league.answer(ALICE, "accept")
    assert league.status() == "invited", "an unsigned answer was taken without confirmation"
    assert _last_inbound(database).status == "held"
    assert not mails(database, ALICE, "league_answer")
    [held] = _holds(database)
    assert held.league_id == league.id and held.game_id is None and held.turn is None
    confirmation = league.asked()
    assert "Autumn <Cup>" in str(confirmation["Subject"]) and "yes" in str(confirmation["Subject"])
    text = " ".join(text_of(confirmation).split())
    assert "answer to the invitation to the league Autumn <Cup>" in text
    assert "accept" in text and 'with "yes"' in text and "when the league starts" in text
    assert "turn" not in text.lower().replace("return", ""), "a league answer spoke of a turn"
    assert "None" not in text and "#None" not in str(confirmation["Subject"])
    assert _link_path(confirmation)


def test_yes_to_a_held_league_answer_joins_once_and_confirms_as_a_signed_accept(
    database: Database, listener: Listener
) -> None:
    league = Invited(database, listener, ALICE, BOB)
    league.answer(BOB, "accept", sign=True)
    assert league.status(BOB) == "active"
    signed_kinds = [m.kind for m in mails(database, BOB)][-1:]
    league.answer(ALICE, "accept")
    confirmation = league.asked()
    before = len(mails(database, ALICE))
    league.say_yes(confirmation)
    assert league.status() == "active"
    assert [m.kind for m in mails(database, ALICE)][before:] == signed_kinds == ["league_answer"]
    answer = latest(database, ALICE)
    assert "invitation accepted" in str(answer["Subject"])
    assert str(answer["Reply-To"]) == league_address(database, league.id, ALICE)
    league.say_yes(confirmation)  # a second yes: a new message, nothing more joined
    assert league.status() == "active"
    assert len(mails(database, ALICE, "league_answer")) == 1
    assert [h.state for h in _holds(database)] == ["played"]


def test_a_newer_held_league_answer_replaces_the_older(
    database: Database, listener: Listener
) -> None:
    league = Invited(database, listener, ALICE)
    league.answer(ALICE, "accept")
    league.answer(ALICE, "decline")
    assert [h.state for h in _holds(database)] == ["replaced", "held"]
    league.say_yes(league.asked())
    assert league.status() == "declined"


def test_confirming_a_league_answer_after_the_start_does_nothing_and_says_why(
    app: Flask, database: Database, listener: Listener
) -> None:
    league = Invited(database, listener, ALICE, BOB, "carol@example.org")
    for address in (BOB, "carol@example.org"):
        league.answer(address, "yes", sign=True)
    league.answer(ALICE, "accept")
    confirmation = league.asked()
    league.start()
    page = app.test_client().get(_link_path(confirmation)).get_data(as_text=True)
    assert "the league has started" in page and 'method="post"' not in page
    league.say_yes(confirmation)
    assert league.status() == "expired", "a lapsed invitation was taken"
    answer = " ".join(text_of(latest(database, ALICE)).split())
    assert "your held answer to the invitation to Autumn <Cup> was not taken" in answer
    assert "has started" in answer and "entries are closed" in answer
    assert [h.state for h in _holds(database)] == ["expired"]


def test_an_unsigned_league_answer_after_the_start_is_refused_at_once(
    database: Database, listener: Listener
) -> None:
    league = Invited(database, listener, ALICE, BOB, "carol@example.org")
    for address in (BOB, "carol@example.org"):
        league.answer(address, "yes", sign=True)
    league.start()
    league.answer(ALICE, "accept")
    assert not _holds(database) and _last_inbound(database).status == "rejected"
    assert "entries are closed" in " ".join(text_of(latest(database, ALICE)).split())


def test_a_strangers_yes_to_a_held_league_answer_does_nothing(
    database: Database, listener: Listener
) -> None:
    league = Invited(database, listener, ALICE)
    league.answer(ALICE, "accept")
    confirmation = league.asked()
    for stranger in (MALLORY, BOB):
        league.say_yes(confirmation, sender=stranger)
        assert league.status() == "invited"
        assert _last_inbound(database).status == "rejected"
    assert not mails(database, MALLORY)
    assert [h.state for h in _holds(database)] == ["held"]


def test_a_broken_signature_league_accept_is_refused_not_held(
    database: Database, listener: Listener
) -> None:
    league = Invited(database, listener, ALICE)
    invitation = league.invitations[ALICE]
    raw = signed(reply(invitation, ALICE, "accept"), GENUINE) + b"P.S. decline\r\n"
    league.send(raw, str(invitation["Reply-To"]), ALICE)
    row = _last_inbound(database)
    assert row.status == "rejected" and "does not verify" in (row.result or ""), row.result
    assert league.status() == "invited"
    assert not _holds(database) and not mails(database, ALICE, "confirm_reply")


def test_the_link_of_a_held_league_answer_shows_the_league_and_takes_the_answer(
    app: Flask, database: Database, listener: Listener
) -> None:
    league = Invited(database, listener, ALICE)
    league.answer(ALICE, "accept")
    path = _link_path(league.asked())
    client: FlaskClient = app.test_client()
    page = client.get(path).get_data(as_text=True)
    assert "invitation to the league Autumn &lt;Cup&gt;" in page and 'method="post"' in page
    assert league.status() == "invited"
    done = client.post(path)
    assert done.status_code == 200 and "your answer was taken" in done.get_data(as_text=True)
    assert league.status() == "active"
    again = client.post(path).get_data(as_text=True)
    assert "already confirmed and taken" in again and "nothing more was done" in again
    assert len(mails(database, ALICE, "league_answer")) == 1


def test_the_confirm_page_of_a_league_answer_fits_phones_and_takes_the_answer(
    browser: Any,  # noqa: F811
    server: str,  # noqa: F811
    database: Database,
    listener: Listener,
) -> None:
    """In Chromium: the page of a held league answer fits 320 and 390 px and a desktop with
    no serious axe-core finding, before and after its button is pressed."""
    league = Invited(database, listener, ALICE)
    league.answer(ALICE, "accept")
    page = browser.new_page()
    page.goto(server + _link_path(league.asked()))
    for stage in ("asked", "taken"):
        for width in (*PHONE_WIDTHS, DESKTOP_WIDTH):
            page.set_viewport_size({"width": width, "height": 900})
            assert_fits(page, f"the league confirm page ({stage}) at {width}px")
        found = axe_violations(page)
        assert not found, f"{stage}: " + "; ".join(map(str, found))
        if stage == "asked":
            assert league.status() == "invited", "opening the page took the answer"
            with page.expect_navigation():
                page.click("main button[type=submit]")
    assert "your answer was taken" in page.inner_text("main")
    assert league.status() == "active"
    page.close()


# -- in the player's language (issue 24) ------------------------------------------------------


def _speaks(database: Database, address: str, language: str) -> None:
    with database.transaction() as session:
        player = players.by_address(session, address)
        assert player is not None
        player.language = language


def test_why_we_ask_and_what_became_of_a_hold_are_in_the_players_language(
    app: Flask, database: Database, listener: Listener
) -> None:
    """The check's reason inside the confirmation mail, and the confirmation page's word on
    a hold confirmed twice, in German; English as before."""
    table = Table(database, listener)
    _speaks(database, ALICE, "de")
    table.unsigned("take 1")
    asked = " ".join(text_of(table.asked()).split())
    assert (
        "die Mail trägt keine DKIM-Signatur von example.org, daher ist ihrem From nicht zu trauen"
    ) in asked
    assert "cannot be trusted" not in asked
    path = _link_path(table.asked())
    client: FlaskClient = app.test_client()
    assert "deine Antwort wurde gespielt" in client.post(path).get_data(as_text=True)
    again = client.post(path).get_data(as_text=True)
    assert "deine Antwort wurde bereits bestätigt und gespielt" in again
    assert "already confirmed" not in again


@pytest.mark.parametrize(
    ("language", "started", "not_taken"),
    [
        (
            "de",
            "hat begonnen, die Anmeldung ist also geschlossen und Einladungen können nicht mehr"
            " beantwortet werden",
            "deine zurückgehaltene Antwort auf die Einladung zu Autumn <Cup> wurde nicht"
            " angenommen",
        ),
        (
            "ru",
            "началась, поэтому запись закрыта и отвечать на приглашения больше нельзя",
            "ваш отложенный ответ на приглашение в Autumn <Cup> не принят",
        ),
    ],
)
def test_a_league_that_started_is_said_in_the_players_language(
    database: Database, listener: Listener, language: str, started: str, not_taken: str
) -> None:
    """An unsigned answer after the start is refused at once, a held one confirmed after the
    start is not taken: both say so in the player's language, with no English left."""
    league = Invited(database, listener, ALICE, BOB, "carol@example.org")
    _speaks(database, ALICE, language)
    for address in (BOB, "carol@example.org"):
        league.answer(address, "yes", sign=True)
    league.answer(ALICE, "accept")
    confirmation = league.asked()
    league.start()
    league.say_yes(confirmation)
    answer = " ".join(text_of(latest(database, ALICE)).split())
    assert not_taken in answer and started in answer
    assert "entries are closed" not in answer and "was not taken" not in answer
    league.answer(ALICE, "accept")  # after the start: refused at once
    answer = " ".join(text_of(latest(database, ALICE)).split())
    assert started in answer and "entries are closed" not in answer
