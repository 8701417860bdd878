"""Conditional moves (service/conditional.py) in a scripted Epaminondas game by API and by
mail: a branch fires at once and both players are told, another move cancels the tree, every
branch is validated like a move, and the opponent never sees the tree. Elemento: standing
instructions by roll."""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from flask import Flask
from sqlalchemy import select

from engine import State
from service import chain, games
from service.db import Database
from service.mail import gateway
from service.models import ConditionalMove, Order, Outbox
from tests.service.conftest import Client
from tests.service.gateway_kit import inbound, latest, reply, text_of
from tests.service.mails import readable
from tests.service.test_secrecy import everything_seen

ALICE, BOB = "alice@example.org", "bob@example.org"
SMALL = {"board": "8x8"}


def start(alice: Client, bob: Client, name: str = "epaminondas", **options: str) -> int:
    data = {"game": name, "options": options or SMALL, "seats": [alice.id, bob.id]}
    return int(alice.ok("POST", "/games", data, status=201)["game"]["id"])


def state_of(database: Database, game_id: int) -> tuple[State, int]:
    with database.transaction() as session:
        game = games.get(session, game_id)
        return games.state_of(game), game.turn


def moves(state: State, seat: int, count: int) -> list[str]:
    """``count`` distinct legal moves, spread over the list so they differ in kind."""
    actions = list(state.legal_actions(seat))
    step = max(1, len(actions) // count)
    return [state.format(action) for action in actions[::step][:count]]


def after(state: State, *played: tuple[int, str]) -> State:
    for seat, text in played:
        state = state.play(seat, text).state
    return state


def mail_move(database: Database, address: str, game_id: int, typed: str) -> Any:
    raw = reply(latest(database, address, game_id), address, typed)
    row = inbound(database, gateway.receive(database, raw, "inject").id)
    gateway.process(database, row.id)
    return inbound(database, row.id)


def played(database: Database, game_id: int) -> list[tuple[int, str, str]]:
    with database.transaction() as session:
        rows = session.scalars(
            select(Order).where(Order.game_id == game_id, Order.status == "played")
        )
        return [(o.seat, o.parsed, o.channel) for o in rows.all()]


def test_a_scripted_game_with_conditional_moves_by_api_and_by_mail(
    database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob)
    path = f"/games/{game_id}"
    state, _ = state_of(database, game_id)
    opening = moves(state, 0, 1)[0]
    alice.ok("POST", path + "/moves", {"turn": 1, "text": opening})

    # By API: Alice answers two of Bob's possible moves, one of them two levels deep.
    state, turn = state_of(database, game_id)
    b1, b2 = moves(state, 1, 2)
    a1 = moves(after(state, (1, b1)), 0, 1)[0]
    a2 = moves(after(state, (1, b2)), 0, 1)[0]
    deeper = after(state, (1, b2), (0, a2))
    b3, b3_other = moves(deeper, 1, 2)
    a3 = moves(after(deeper, (1, b3)), 0, 1)[0]
    text = f"if {b1} then {a1}\nIF {b2} THEN {a2}, if {b3} then {a3}"
    given = alice.ok("POST", path + "/conditional", {"turn": turn, "text": text})["conditional"]
    assert given["lines"] == [
        f"if {b1} then {a1}",
        f"if {b2} then {a2} if {b3} then {a3}",
    ]
    # What is shown is what may be sent: the lines given back make the same tree.
    again = {"turn": turn, "text": "\n".join(given["lines"])}
    assert alice.ok("POST", path + "/conditional", again)["conditional"]["tree"] == given["tree"]
    assert bob.ok("GET", path + "/conditional")["conditional"] is None

    # Bob plays b2 by mail: Alice's answer a2 is played at once, and both are told.
    row = mail_move(database, BOB, game_id, b2)
    assert row.status == "processed", row.result
    assert played(database, game_id)[-2:] == [(1, b2, "mail"), (0, a2, "conditional")]
    note = f"conditional move: if {b2} then {a2}"
    assert note in text_of(latest(database, BOB, game_id))
    assert note in text_of(latest(database, ALICE, game_id))
    left = alice.ok("GET", path + "/conditional")["conditional"]
    assert left["lines"] == [f"if {b3} then {a3}"]

    # Bob plays another move by API: the rest of the tree is cancelled, nothing is played.
    _, turn = state_of(database, game_id)
    bob.ok("POST", path + "/moves", {"turn": turn, "text": b3_other})
    assert played(database, game_id)[-1] == (1, b3_other, "api")
    assert alice.ok("GET", path + "/conditional")["conditional"] is None
    assert state_of(database, game_id)[0].to_act == (0,)

    # By mail: Alice moves and leaves an answer in the same reply; Bob's move fires it.
    state, _ = state_of(database, game_id)
    mine = moves(state, 0, 1)[0]
    theirs = moves(after(state, (0, mine)), 1, 1)[0]
    answer = moves(after(state, (0, mine), (1, theirs)), 0, 1)[0]
    row = mail_move(database, ALICE, game_id, f"{mine}\nif {theirs} then {answer}\nThanks!")
    assert row.status == "processed", row.result
    confirmation = text_of(latest(database, ALICE, game_id))
    assert f"if {theirs} then {answer}" in confirmation and "seen by you alone" in confirmation
    assert f"then {answer}" not in text_of(latest(database, BOB, game_id))
    _, turn = state_of(database, game_id)
    bob.ok("POST", path + "/moves", {"turn": turn, "text": theirs})
    assert played(database, game_id)[-3:] == [
        (0, mine, "mail"),
        (1, theirs, "api"),
        (0, answer, "conditional"),
    ]
    record = bob.ok("GET", path + "/record")
    assert record["chain"][-1]["data"]["text"] == answer  # a played answer is a move
    assert chain.verify(record).ok, chain.verify(record).summary()


def test_every_branch_is_validated_against_the_position_it_would_meet(
    database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob)
    path = f"/games/{game_id}"
    early = alice.request("POST", path + "/conditional", json={"turn": 1, "text": "if a1 then b2"})
    assert early.status_code == 409
    assert "not your opponent's move" in early.get_json()["error"]["message"]
    state, _ = state_of(database, game_id)
    alice.ok("POST", path + "/moves", {"turn": 1, "text": moves(state, 0, 1)[0]})
    state, turn = state_of(database, game_id)
    theirs = moves(state, 1, 1)[0]
    # The same error a move gets, naming the branch.
    bad = alice.request(
        "POST", path + "/conditional", json={"turn": turn, "text": f"if {theirs} then h8-h1"}
    )
    assert bad.status_code == 422
    message = bad.get_json()["error"]["message"]
    assert f"in 'if {theirs} then h8-h1', your answer:" in message
    try:
        after(state, (1, theirs)).play(0, "h8-h1")
    except Exception as error:  # the engine's own words come back
        assert str(error) in message
    unreadable = alice.request(
        "POST", path + "/conditional", json={"turn": turn, "text": f"{theirs} then a1"}
    )
    assert unreadable.status_code == 422
    assert "write 'if <their move> then <your move>'" in unreadable.get_json()["error"]["message"]
    answer = moves(after(state, (1, theirs)), 0, 2)
    twice = f"if {theirs} then {answer[0]}\nif {theirs} then {answer[1]}"
    conflicting = alice.request("POST", path + "/conditional", json={"turn": turn, "text": twice})
    assert conflicting.status_code == 422 and "two answers" in conflicting.get_data(as_text=True)
    stale = alice.request(
        "POST", path + "/conditional", json={"turn": turn - 1, "text": f"if {theirs} then a1"}
    )
    assert stale.status_code == 409
    with database.transaction() as session:
        assert not session.scalars(select(ConditionalMove)).all()


MASK = re.compile(r"#\d+|\d{4}-\d\d-\d\d[ T][\d:.+]+|&#34;\d+&#34;")


def seen_by_bob(database: Database, game_id: int, bob: Client, anonymous: Client) -> list[str]:
    """What test_secrecy compares, but the lists of Bob's games (which hold both games)."""
    return [
        text
        for text in everything_seen(database, game_id, bob, anonymous)
        if not text.startswith('{"games":')
    ]


def test_the_opponent_never_sees_the_tree(
    app: Flask, database: Database, alice: Client, bob: Client, anonymous: Client
) -> None:
    """Two games played alike, Alice leaves a tree in one: everything Bob and a spectator
    see (API views, records, mails, the public page) is the same in both."""
    seen = []
    for with_tree in (True, False):
        game_id = start(alice, bob)
        path = f"/games/{game_id}"
        state, _ = state_of(database, game_id)
        alice.ok("POST", path + "/moves", {"turn": 1, "text": moves(state, 0, 1)[0]})
        state, turn = state_of(database, game_id)
        theirs, other = moves(state, 1, 2)
        if with_tree:
            answer = moves(after(state, (1, theirs)), 0, 1)[0]
            text = f"if {theirs} then {answer}"
            alice.ok("POST", path + "/conditional", {"turn": turn, "text": text})
        assert bob.ok("GET", path + "/conditional")["conditional"] is None
        before = seen_by_bob(database, game_id, bob, anonymous)
        page = MASK.sub("~", app.test_client().get(f"/games/{game_id}").get_data(as_text=True))
        bob.ok("POST", path + "/moves", {"turn": turn, "text": other})  # cancels the tree
        seen.append((before, page, seen_by_bob(database, game_id, bob, anonymous)))
    for texts_with, texts_without in zip(seen[0], seen[1], strict=True):
        assert texts_with == texts_without, "\n".join(
            difflib.unified_diff(str(texts_with).split("\\n"), str(texts_without).split("\\n"))
        )[:3000]


def test_elemento_standing_instructions_by_roll(
    database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "elemento", dice="rolled")
    path = f"/games/{game_id}"
    state, _ = state_of(database, game_id)
    light = moves(state, 0, 1)[0]
    alice.ok("POST", path + "/moves", {"turn": 1, "text": light})
    state, turn = state_of(database, game_id)
    dark = moves(state, 1, 1)[0]
    board = after(state, (1, dark))
    lines = []
    for roll in ("G+R", "G+B", "Y+R", "Y+B"):
        rolled = board.apply_chance(roll).state
        if rolled.to_act == (0,):
            lines.append(f"if roll {roll.lower()} then {moves(rolled, 0, 1)[0]}")
    given = alice.ok("POST", path + "/conditional", {"turn": turn, "text": "\n".join(lines)})
    assert len(given["conditional"]["lines"]) == len(lines) == 4
    bad = alice.request(
        "POST", path + "/conditional", json={"turn": turn, "text": "if roll R+R then E@a4"}
    )
    assert bad.status_code == 422 and "G+R, G+B, Y+R, Y+B" in bad.get_json()["error"]["message"]
    bob.ok("POST", path + "/moves", {"turn": turn, "text": dark})
    last = played(database, game_id)[-1]
    assert last[0] == 0 and last[2] == "conditional"
    with database.transaction() as session:
        mails = [
            readable(r) for r in session.scalars(select(Outbox).where(Outbox.game_id == game_id))
        ]
    assert any("conditional move: if roll" in mail for mail in mails)
    assert alice.ok("GET", path + "/conditional")["conditional"] is None
    record = json.dumps(bob.ok("GET", path + "/record"))
    fired = [line for line in given["conditional"]["lines"] if line in record]
    assert len(fired) == 1  # the answer played is public like any move; the others never are
