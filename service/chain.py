"""The game chain: every step of a game hashed into a chain anyone can verify.

Each game keeps an append-only list of links. Every game mail carries the newest one as
``chain #N <hash>``; the record (``GET /games/ID/record``) carries them all, and
``pbem record verify FILE`` replays a record through the engine and checks every link
(:func:`verify`).

The recipe, exactly (so that anyone can reimplement it)
-------------------------------------------------------
``canonical(x)`` is the UTF-8 encoding of ``json.dumps(x, sort_keys=True,
separators=(",", ":"), ensure_ascii=False)``: keys sorted, no spaces, strings as written.

A link is ``{"n": N, "prev": P, "kind": K, "data": D}`` and its hash is
``hex(SHA-256(canonical(link)))``, lower-case. Links are numbered from 0; link 0 has
``prev`` = 64 zeros, every later link the hash of the one before it. So one hash (the
newest, as a mail shows it) commits to the whole game so far.

Kinds, and their ``data`` (``turn`` is the service's turn number the step belongs to):

==========  ===============================================================================
``start``   ``game``, ``options``, ``players``, ``game_id`` (string), ``commitment`` (the
            SHA-256 hex of the dice seed, or null), ``position`` (the start position a
            director gave, as ``pbem engine show`` prints it, or null for the usual start):
            the game the engine replays; a chain that begins part-way through a game (an
            import whose own chain could not be kept) adds ``resumed``: ``{"state"`` (the
            engine's JSON of the position), ``"steps"`` (the record's steps before it),
            ``"from_chain"`` (the head hash of the chain it came with, or null)``}``
``move``    ``turn``, ``seat``, ``text``: an alternating move, as the engine formats it
``orders``  ``turn``, ``seat``, ``text``, ``salt``, ``receipt``: one seat's sealed orders,
            written when the turn resolves (never before), one link per seat in seat order;
            ``receipt`` is the hash mailed to the author when they sent the orders
            (SHA-256 of ``"{game_id}:{turn}:{seat}:{text}:{salt}"``, hex), ``salt`` the secret
            that opens it; both null for default orders given at the deadline
``roll``    ``turn``, ``roll`` (the roll number the dice derivation used), ``outcome``: a
            chance step; the seed stays secret until the ``end`` link (see ``engine/dice.py``)
``director`` ``turn``, ``actor``, ``action`` (``deadline``, ``pause``, ``resume``,
            ``replace``, ``set_result``, ``correct_result``, ``void``), ``detail`` (the new
            deadline, the reason, ``{"seat", "player", "reason"}`` or ``{"result",
            "reason"}``): a director's act, never a rewrite
``takeback`` ``turn`` (the turn it closed), ``seat``, ``text``, ``played_in`` (the turn the
            move was played in): the opponent consented to undo ``seat``'s last move, which
            must be the last step; the game goes back to the position before it (issue 25)
``end``     ``turn``, ``by`` (``move``, ``orders``, ``resign``, ``draw``, ``time``,
            ``forfeit``, ``director``...), ``result`` (``places``, ``reason``, ``result``),
            ``seed`` (hex, or null when the game has no dice)
==========  ===============================================================================

The verifier also checks that the record's ``steps`` are exactly the steps the chain replays,
so an edit to the record outside the chain is caught too.

Nothing secret is ever in a link before it may be known: sealed orders and their salts enter
the chain when their turn resolves, the dice seed when the game ends.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

import engine
from engine import EngineError, State
from engine import dice as fair_dice
from service import db, i18n
from service.i18n import N_
from service.models import ChainLink, Game
from service.receipts import receipt

GENESIS = "0" * 64
KINDS = ("start", "move", "orders", "roll", "director", "end", "takeback")
_KIND_NAMES = {
    "start": N_("start"),
    "move": N_("move"),
    "orders": N_("orders"),
    "roll": N_("roll"),
    "director": N_("director"),
    "end": N_("end"),
    "takeback": N_("takeback"),
}
"""Each kind as the verifier's lines name it (the link's ``kind`` itself, in English)."""
DIRECTOR_ACTIONS = (
    "deadline",
    "pause",
    "resume",
    "replace",
    "set_result",
    "correct_result",
    "void",
)


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def link_hash(number: int, prev: str, kind: str, data: Mapping[str, Any]) -> str:
    body = {"n": number, "prev": prev, "kind": kind, "data": dict(data)}
    return hashlib.sha256(canonical(body)).hexdigest()


# -- writing ------------------------------------------------------------------------------


def head_query(game_id: Any) -> Select[int, str]:
    """The newest link's number and hash (``game_id``: an id, or a column to correlate)."""
    query = select(ChainLink.number, ChainLink.hash).where(ChainLink.game_id == game_id)
    return query.order_by(ChainLink.number.desc()).limit(1)


def read_head(session: Session, game: Game, *also: Any) -> Any:
    """Read the game's newest link into the unit of work (:func:`_head`), with the scalar
    columns ``also`` in the same statement; returns the row (``.number``, ``.hash``, then
    ``also``'s labels); one statement, after the game's lock."""
    number = head_query(game.id).with_only_columns(ChainLink.number).scalar_subquery()
    digest = head_query(game.id).with_only_columns(ChainLink.hash).scalar_subquery()
    row = session.execute(select(number.label("number"), digest.label("hash"), *also)).one()
    db.work_of(session).chain_heads[game.id] = (
        None if row.number is None else (row.number, row.hash)
    )
    return row


def _head(session: Session, game: Game) -> tuple[int, str] | None:
    """The newest link's number and hash, read once per unit of work (after the game's lock:
    read with it, it could be older than a link appended while we waited for the lock) and
    kept as links are appended (issue 23)."""
    heads = db.work_of(session).chain_heads
    if game.id not in heads:
        row = session.execute(head_query(game.id)).first()
        heads[game.id] = None if row is None else (row.number, row.hash)
    return heads[game.id]


def _keep_head(session: Session, link: ChainLink) -> None:
    db.work_of(session).chain_heads[link.game_id] = (link.number, link.hash)


def append(session: Session, game: Game, kind: str, data: Mapping[str, Any]) -> ChainLink:
    """Add one link after the newest; the game row is locked by the caller."""
    head = _head(session, game)
    if head is None and kind != "start":
        started(session, game)
        head = _head(session, game)
    number, prev = (0, GENESIS) if head is None else (head[0] + 1, head[1])
    body = {"turn": game.turn, **data} if kind != "start" else dict(data)
    link = ChainLink(
        game_id=game.id,
        number=number,
        kind=kind,
        data=body,
        prev=prev,
        hash=link_hash(number, prev, kind, body),
    )
    session.add(link)
    session.flush()
    _keep_head(session, link)
    return link


def start_data(game: Game, resumed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Link 0's data: the game the engine replays, and the dice commitment."""
    data: dict[str, Any] = {
        "game": game.name,
        "options": dict(game.options),
        "players": game.players,
        "game_id": str(game.id),
        "commitment": game.commitment,
        "position": game.start_position,
    }
    if resumed is not None:
        data["resumed"] = dict(resumed)
    return data


def started(session: Session, game: Game, resumed: Mapping[str, Any] | None = None) -> ChainLink:
    """Link 0: the game the engine replays, and the dice commitment."""
    return append(session, game, "start", start_data(game, resumed))


def append_all(
    session: Session, game: Game, links: Sequence[tuple[str, Mapping[str, Any]]]
) -> None:
    """Add links after the newest, in order, reading the head once and flushing nothing
    (a step's links go in with the rest of its rows). ``turn`` defaults to the game's."""
    head = _head(session, game)
    number, prev = (0, GENESIS) if head is None else (head[0] + 1, head[1])
    rows = []
    for kind, data in links:
        body = {"turn": game.turn, **data} if kind != "start" else dict(data)
        digest = link_hash(number, prev, kind, body)
        rows.append(
            ChainLink(game_id=game.id, number=number, kind=kind, data=body, prev=prev, hash=digest)
        )
        number, prev = number + 1, digest
    session.add_all(rows)
    if rows:
        _keep_head(session, rows[-1])


def adopt(session: Session, game: Game, links: Sequence[Mapping[str, Any]]) -> None:
    """Store a verified chain that came with an imported record, link for link."""
    for link in links:
        session.add(
            ChainLink(
                game_id=game.id,
                number=link["n"],
                kind=link["kind"],
                data=dict(link["data"]),
                prev=link["prev"],
                hash=link["hash"],
            )
        )
    session.flush()
    db.work_of(session).chain_heads.pop(game.id, None)  # read again when next needed


def end_data(game: Game, by: str, result: Mapping[str, Any]) -> dict[str, Any]:
    seed = game.seed.hex() if game.seed else None
    return {"by": by, "result": dict(result), "seed": seed}


def ended(session: Session, game: Game, by: str, result: Mapping[str, Any]) -> None:
    append(session, game, "end", end_data(game, by, result))


def director_data(actor: str, action: str, detail: Any) -> dict[str, Any]:
    return {"actor": actor, "action": action, "detail": detail}


def head_line(session: Session, game: Game) -> str | None:
    """``chain #N <hash>`` of the newest link, for the mail footer; None before any."""
    head = _head(session, game)
    return None if head is None else f"chain #{head[0]} {head[1]}"


def export(session: Session, game: Game) -> list[dict[str, Any]]:
    query = select(ChainLink).where(ChainLink.game_id == game.id).order_by(ChainLink.number)
    return [
        {"n": row.number, "prev": row.prev, "kind": row.kind, "data": row.data, "hash": row.hash}
        for row in session.scalars(query)
    ]


# -- verifying ----------------------------------------------------------------------------


class ChainError(ValueError):
    """A record that cannot be read as a chained record at all; the message says why."""


@dataclass
class Report:
    """What :func:`verify` found: one line per link checked, and the first fault."""

    lines: list[str] = field(default_factory=list)
    fault: str | None = None
    links: int = 0
    rolls_checked: int = 0
    receipts_checked: int = 0
    said: list[Said] = field(default_factory=list)
    """:attr:`lines` as catalog texts, to say them in a reader's language (:meth:`in_language`)."""
    fault_said: Said | None = None

    @property
    def ok(self) -> bool:
        return self.fault is None

    def summary(self) -> str:
        return self._summary().render()

    def _summary(self) -> Said:
        if self.fault_said is not None:
            return Said(N_("MISMATCH: %(fault)s"), fault=self.fault_said)
        return Said(
            N_(
                "OK: %(links)s links chain and replay; %(rolls)s rolls match the seed, "
                "%(receipts)s receipts open"
            ),
            links=self.links,
            rolls=self.rolls_checked,
            receipts=self.receipts_checked,
        )

    def say(self, text: Said) -> None:
        self.said.append(text)
        self.lines.append(text.render())

    def found(self, fault: Said) -> None:
        self.fault_said = fault
        self.fault = fault.render()

    def in_language(self, locale: str) -> tuple[list[str], str]:
        """The lines and the summary line in ``locale`` (English: :attr:`lines` and
        :meth:`summary` exactly)."""
        translate = i18n.translations(locale).ugettext
        return [text.render(translate) for text in self.said], self._summary().render(translate)


@dataclass(frozen=True, init=False)
class Said:
    """A text of the verifier: a catalog text (``N_``) and what fills its placeholders (other
    :class:`Said` among them, said in the same language)."""

    template: str
    values: Mapping[str, Any]

    def __init__(self, template: str, /, **values: Any) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "values", values)

    @classmethod
    def literal(cls, text: str) -> Said:
        return cls("%(text)s", text=text)

    def render(self, translate: Callable[[str], str] = str) -> str:
        values = {
            key: value.render(translate) if isinstance(value, Said) else value
            for key, value in self.values.items()
        }
        return translate(self.template) % values if values else translate(self.template)


class _Fault(Exception):
    def __init__(self, template: str, /, **values: Any) -> None:
        self.said = Said(template, **values) if values else Said(template)
        super().__init__(self.said.render())


@dataclass
class _Replay:
    record: Mapping[str, Any]
    state: State
    game_id: str
    commitment: str | None
    seed: bytes | None
    history: list[str] = field(default_factory=list)
    steps: list[Mapping[str, Any]] = field(default_factory=list)
    sealed: list[Mapping[str, Any]] = field(default_factory=list)
    last_roll: int | None = None
    before: list[tuple[int, State]] = field(default_factory=list)
    """(step index, state before it) of each alternating move, for a ``takeback`` link."""
    result: Mapping[str, Any] | None = None
    report: Report = field(default_factory=Report)

    def seat_name(self, seat: Any) -> str:
        names = self.state.game.seat_names
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"


def verify(record: Mapping[str, Any]) -> Report:
    """Check a game record's chain: hashes, the engine replay, dice and receipts.

    Stops at the first link that does not match and names it. Raises :class:`ChainError`
    when the record has no chain or names no game the engine knows.
    """
    links = record.get("chain") if isinstance(record, Mapping) else None
    if not isinstance(links, list) or not links:
        raise ChainError("the record has no chain (export it with GET /games/ID/record)")
    replay = _begin(record, links[0])
    prev = GENESIS
    for index, link in enumerate(links):
        where = _where(index, link)
        try:
            prev = _check_link(replay, index, link, prev)
            if not (link["kind"] == "orders" and _more_orders(links, index)):
                _settle_orders(replay)
        except _Fault as fault:
            replay.report.found(Said("%(where)s: %(fault)s", where=where, fault=fault.said))
            replay.report.say(Said(N_("%(fault)s — MISMATCH"), fault=replay.report.fault_said))
            return replay.report
        except EngineError as error:
            engine_says = Said.literal(str(error))
            replay.report.found(
                Said(
                    N_("%(where)s: the engine refuses it: %(error)s"),
                    where=where,
                    error=engine_says,
                )
            )
            replay.report.say(Said(N_("%(fault)s — MISMATCH"), fault=replay.report.fault_said))
            return replay.report
        replay.report.say(Said(N_("%(where)s: ok"), where=where))
        replay.report.links += 1
    try:
        _check_steps(replay)
        _check_ending(replay)
    except _Fault as fault:
        replay.report.found(fault.said)
    return replay.report


def _begin(record: Mapping[str, Any], first: Any) -> _Replay:
    if not isinstance(first, Mapping) or first.get("kind") != "start":
        raise ChainError("the chain does not begin with a start link")
    data = first.get("data") or {}
    try:
        rules = engine.new_game(str(data["game"]), data.get("options") or {}, data.get("players"))
    except (KeyError, EngineError) as error:
        raise ChainError(f"the start link names no game the engine knows: {error}") from None
    seed_hex = record.get("seed")
    try:
        seed = bytes.fromhex(seed_hex) if isinstance(seed_hex, str) else None
    except ValueError:
        raise ChainError(f"the seed {seed_hex!r} is not hexadecimal") from None
    replay = _Replay(
        record=record,
        state=_start_state(rules, data),
        game_id=str(data.get("game_id")),
        commitment=data.get("commitment"),
        seed=seed,
    )
    resumed = data.get("resumed")
    if isinstance(resumed, Mapping):
        replay.steps = [step for step in resumed.get("steps") or [] if isinstance(step, Mapping)]
        replay.history = [str(s.get("text")) for s in replay.steps if s.get("kind") == "move"]
        rolls = sum(1 for step in replay.steps if step.get("kind") == "chance")
        replay.last_roll = rolls or None
    return replay


def _start_state(rules: engine.Game, data: Mapping[str, Any]) -> State:
    """Where the replay begins: the usual start, a director's position, or a resumed state."""
    resumed, position = data.get("resumed"), data.get("position")
    try:
        if isinstance(resumed, Mapping):
            state = engine.state_from_json(resumed["state"])
            if state.game.name != rules.name:
                raise ChainError(f"the resumed position is one of {state.game.title}")
            return state
        if isinstance(position, str):
            return rules.parse_position(position)
        return rules.initial_state()
    except (EngineError, KeyError, TypeError, ValueError) as error:
        raise ChainError(f"the start link's position does not read: {error}") from None


def _where(index: int, link: Any) -> Said:
    if not isinstance(link, Mapping):
        return Said(N_("link #%(index)s"), index=index)
    data = link.get("data")
    kind = Said(_KIND_NAMES.get(str(link.get("kind")), "%(kind)s"), kind=link.get("kind"))
    if isinstance(data, Mapping) and "turn" in data:
        return Said(
            N_("link #%(index)s (%(kind)s, turn %(turn)s)"),
            index=index,
            kind=kind,
            turn=data["turn"],
        )
    return Said(N_("link #%(index)s (%(kind)s)"), index=index, kind=kind)


def _check_link(replay: _Replay, index: int, link: Any, prev: str) -> str:
    if not isinstance(link, Mapping) or not isinstance(link.get("data"), Mapping):
        raise _Fault(N_("not a link %(fields)s"), fields="{n, prev, kind, data, hash}")
    if link.get("n") != index:
        raise _Fault(N_("numbered %(n)r, expected %(index)s"), n=link.get("n"), index=index)
    if link.get("prev") != prev:
        raise _Fault(N_("its prev is not the hash of the link before it"))
    kind, data = link.get("kind"), link["data"]
    if kind not in KINDS or (kind == "start") != (index == 0):
        raise _Fault("%(text)s", text=f"kind {kind!r} does not belong here")
    if link_hash(index, prev, str(kind), data) != link.get("hash"):
        raise _Fault(N_("its hash does not match its content"))
    if replay.result is not None and kind != "director":
        raise _Fault(N_("a step after the game ended"))
    _REPLAY[str(kind)](replay, data)
    return str(link["hash"])


def _replay_start(replay: _Replay, data: Mapping[str, Any]) -> None:
    record = replay.record
    for key, theirs in _START_KEYS.items():
        ours = record.get(key)
        if key in record and (str(ours) if key == "game_id" else ours) != data.get(theirs):
            raise _Fault(
                f"the record's {key} {ours!r} differs from the chain's {data.get(theirs)!r}"
            )


_START_KEYS = {  # the record's name for each of the start link's fields
    "game": "game",
    "options": "options",
    "players": "players",
    "game_id": "game_id",
    "commitment": "commitment",
    "start_position": "position",
}


def _replay_move(replay: _Replay, data: Mapping[str, Any]) -> None:
    state, seat = replay.state, data.get("seat")
    if state.simultaneous or state.chance_outcomes() or seat not in state.to_act:
        raise _Fault(
            "%(text)s",
            text=f"a move by {replay.seat_name(seat)}, but the game says: {state.status()}",
        )
    action = state.parse(seat, str(data.get("text")))
    if state.format(action) != data.get("text"):
        raise _Fault("%(text)s", text=f"{data.get('text')!r} is not the move's canonical text")
    replay.history.append(state.format(action))
    replay.before.append((len(replay.steps), state))
    replay.steps.append({"kind": "move", "seat": seat, "text": state.format(action)})
    replay.state = state.play(seat, action).state


def _replay_takeback(replay: _Replay, data: Mapping[str, Any]) -> None:
    """The last step must be this seat's move, as written; the replay goes back before it."""
    seat, text = data.get("seat"), data.get("text")
    last = replay.steps[-1] if replay.steps else None
    known = replay.before[-1] if replay.before else None
    if (
        last is None
        or known is None
        or known[0] != len(replay.steps) - 1
        or last.get("seat") != seat
        or last.get("text") != text
    ):
        raise _Fault(
            "%(text)s",
            text=f"a takeback of {text!r} by {replay.seat_name(seat)}, which is not the last step",
        )
    replay.steps.pop()
    replay.history.pop()
    replay.state = replay.before.pop()[1]


def _replay_orders(replay: _Replay, data: Mapping[str, Any]) -> None:
    state, seat = replay.state, data.get("seat")
    if not state.simultaneous or seat not in state.to_act:
        raise _Fault(
            "%(text)s",
            text=f"orders of {replay.seat_name(seat)}, but the game says: {state.status()}",
        )
    if any(earlier.get("seat") == seat for earlier in replay.sealed):
        raise _Fault(
            "%(text)s", text=f"a second set of orders of {replay.seat_name(seat)} in one turn"
        )
    text, salt, proof = str(data.get("text")), data.get("salt"), data.get("receipt")
    state.parse(seat, text)  # the same errors as when they were given
    if (salt is None) != (proof is None):
        raise _Fault(N_("a receipt without its salt, or a salt without its receipt"))
    if salt is not None:
        made = receipt(replay.game_id, int(data.get("turn", -1)), seat, text, str(salt))
        if made != proof:
            raise _Fault(
                "%(text)s",
                text=f"the receipt of {replay.seat_name(seat)} does not open with its salt",
            )
        replay.report.receipts_checked += 1
    replay.sealed.append(data)


def _more_orders(links: Sequence[Any], index: int) -> bool:
    following = links[index + 1] if index + 1 < len(links) else None
    if not (isinstance(following, Mapping) and following.get("kind") == "orders"):
        return False
    this, after = links[index].get("data", {}), following.get("data")
    return isinstance(after, Mapping) and after.get("turn") == this.get("turn")


def _settle_orders(replay: _Replay) -> None:
    """Once a turn's orders links are all read: resolve them through the engine."""
    if not replay.sealed:
        return
    state = replay.state
    given = {int(item["seat"]): str(item["text"]) for item in replay.sealed}
    if set(given) != set(state.to_act):
        raise _Fault(N_("a sealed turn whose orders do not cover every seat that owed them"))
    for seat in sorted(given):
        state = state.submit(seat, given[seat])
        text = state.format(state.orders_of(seat))
        replay.history.append(text)
        replay.steps.append({"kind": "move", "seat": seat, "text": text})
    replay.sealed = []
    replay.state = state.resolve().state


def _replay_roll(replay: _Replay, data: Mapping[str, Any]) -> None:
    state, outcome, number = replay.state, data.get("outcome"), data.get("roll")
    outcomes = state.chance_outcomes()
    if not outcomes:
        raise _Fault("%(text)s", text=f"a roll, but the game says: {state.status()}")
    if outcome not in outcomes:
        raise _Fault(
            "%(text)s", text=f"{outcome!r} is not one of the outcomes {', '.join(outcomes)}"
        )
    if not isinstance(number, int) or (
        replay.last_roll is not None and number != replay.last_roll + 1
    ):
        raise _Fault(
            "%(text)s", text=f"roll number {number!r} does not follow roll {replay.last_roll}"
        )
    if replay.seed is not None:
        expected = fair_dice.roll(replay.seed, replay.game_id, number, replay.history, outcomes)
        if expected != outcome:
            raise _Fault(
                N_("roll %(number)s recorded %(outcome)s, the seed gives %(expected)s"),
                number=number,
                outcome=outcome,
                expected=expected,
            )
        replay.report.rolls_checked += 1
    replay.last_roll = number
    replay.steps.append({"kind": "chance", "outcome": outcome})
    replay.state = state.apply_chance(str(outcome)).state


def _replay_director(replay: _Replay, data: Mapping[str, Any]) -> None:
    action = data.get("action")
    if action not in DIRECTOR_ACTIONS:
        raise _Fault("%(text)s", text=f"no director action {action!r}")
    if action == "correct_result" and replay.result is None:
        raise _Fault(N_("a director's correction before the game ended"))
    if action in ("correct_result", "void"):
        detail = data.get("detail")
        replay.result = detail.get("result") if isinstance(detail, Mapping) else None
        if not isinstance(replay.result, Mapping):
            raise _Fault("%(text)s", text=f"a director's {action} without the result it gives")


def _replay_end(replay: _Replay, data: Mapping[str, Any]) -> None:
    result, seed = data.get("result"), data.get("seed")
    if not isinstance(result, Mapping):
        raise _Fault(N_("an end without a result"))
    outcome = replay.state.outcome
    if data.get("by") in ("move", "orders", "start"):
        if outcome is None or outcome.to_json()["places"] != result.get("places"):
            raise _Fault(
                "%(text)s",
                text=f"ends {result.get('result')}, but the game says: {replay.state.status()}",
            )
    elif outcome is not None:
        raise _Fault("%(text)s", text=f"ends by {data.get('by')} after the game was already over")
    if replay.commitment is not None:
        if not isinstance(seed, str) or _commitment_of(seed) != replay.commitment:
            raise _Fault(N_("the revealed seed does not match the commitment"))
        if replay.seed is not None and replay.seed.hex() != seed:
            raise _Fault(N_("the record's seed differs from the one the chain revealed"))
    replay.result = result


def _commitment_of(seed: str) -> str | None:
    try:
        return fair_dice.commitment(bytes.fromhex(seed))
    except ValueError:
        return None


_REPLAY = {
    "start": _replay_start,
    "move": _replay_move,
    "orders": _replay_orders,
    "roll": _replay_roll,
    "director": _replay_director,
    "end": _replay_end,
    "takeback": _replay_takeback,
}


def _check_steps(replay: _Replay) -> None:
    """The record's steps must be the chain's, one for one: nothing edited outside it."""
    recorded = replay.record.get("steps")
    if not isinstance(recorded, list):
        return
    ours = [_step_view(step) for step in recorded]
    chained = [_step_view(step) for step in replay.steps]
    for number, (theirs, mine) in enumerate(zip(ours, chained, strict=False), 1):
        if theirs != mine:
            raise _Fault(
                "%(text)s", text=f"the record's step {number} is {theirs}, the chain's is {mine}"
            )
    if len(ours) != len(chained):
        raise _Fault("%(text)s", text=f"the record has {len(ours)} steps, the chain {len(chained)}")


def _step_view(step: Any) -> str:
    if not isinstance(step, Mapping):
        return repr(step)
    if step.get("kind") == "chance":
        return f"roll {step.get('outcome')}"
    return f"{step.get('text')} (seat {step.get('seat')})"


def _check_ending(replay: _Replay) -> None:
    recorded = replay.record.get("result")
    if replay.result is None:
        if recorded is not None:
            raise _Fault(N_("the record has a result the chain never reached"))
        return
    if recorded is not None and recorded.get("result") != replay.result.get("result"):
        raise _Fault(
            f"the record's result {recorded.get('result')} differs from the chain's "
            f"{replay.result.get('result')}"
        )
