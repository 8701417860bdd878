"""Provably fair dice (ELE-17): committed seed, derived rolls, verifiable records.

The engine draws no random numbers: the service draws a secret ``seed`` (32 bytes from
``secrets``) when a game starts, shows every player ``commitment(seed)``, derives every chance
outcome from the seed and the moves played so far with :func:`roll`, and reveals the seed when
the game ends. Anyone can then recompute every roll with :func:`verify` (``pbem dice verify``).

The construction, exactly (so that a player can reimplement it)
----------------------------------------------------------------
Integers are unsigned big-endian; ``utf8(s)`` is the UTF-8 encoding of ``s``; ``||`` joins bytes.

1. ``commitment = hex(SHA-256(seed))``, lower-case.
2. Rolls are numbered ``n = 1, 2, ...`` over every chance step of the game, in order (with 3–4
   players Elemento's seating draw is roll 1, the first dice roll roll 2).
3. ``history`` is the list of the canonical texts of the moves played before roll ``n`` (each
   move as the engine formats it, e.g. ``E@a4`` or ``W@d1 1:opp d:keep``), in order::

       history_digest = SHA-256( for each text t: uint32(len(utf8(t))) || utf8(t) )

4. For a counter ``c = 0, 1, 2, ...``::

       message(c) = b"pbem-dice-v1" || uint32(len(utf8(game_id))) || utf8(game_id)
                    || uint64(n) || history_digest || uint32(c)
       x(c)       = HMAC-SHA256(key=seed, msg=message(c)), read as a 256-bit integer

5. With ``k`` equally likely outcomes (the state's ``chance_outcomes()``, in the engine's
   order) and ``limit = 2**256 - (2**256 mod k)``, the roll is ``outcomes[x(c) mod k]`` for the
   first ``c`` with ``x(c) < limit``. Rejecting the top ``2**256 mod k`` values leaves every
   index exactly equally likely (no modulo bias); a rejection has probability below
   ``k / 2**256``, so in practice ``c = 0`` always decides.

Because the seed is fixed (and committed) before any move, and each roll also depends on the
moves already played, the server can neither pick a roll nor change one afterwards.

Records
-------
A whole game as a JSON-able dict::

    {"game": "elemento", "options": {"dice": "rolled"}, "players": 2, "game_id": "g-17",
     "commitment": "<hex>", "seed": "<hex>" or None until the game ends,
     "steps": [{"kind": "chance", "outcome": "G+R"}, {"kind": "move", "seat": 0, "text": "E@a4"},
               ...]}

:class:`DiceLog` plays a game and keeps such a record; :func:`verify` replays one.

>>> seed = bytes(32)
>>> commitment(seed)
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> roll(seed, "demo", 1, [], ["G+R", "G+B", "Y+R", "Y+B"])
'Y+R'
>>> roll(seed, "demo", 2, [], ["G+R", "G+B", "Y+R", "Y+B"])
'G+R'
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import Game, Resolution, State
from engine.errors import N_, EngineError, NTranslate, Reason, Translate
from engine.registry import new_game

__all__ = [
    "DiceLog",
    "RecordError",
    "RollCheck",
    "Verification",
    "commitment",
    "history_digest",
    "roll",
    "unbiased_index",
    "verify",
]

DOMAIN = b"pbem-dice-v1"
BLOCK_BITS = 256


class RecordError(ValueError):
    """A dice record that cannot be read or cannot be verified yet; the message says why.

    Like the engine's errors it carries a :class:`Reason` (code, parameters, English
    template) that the service can render in the player's language.
    """

    def __init__(self, reason: Reason) -> None:
        self.why = reason
        super().__init__(reason.render())

    @property
    def code(self) -> str:
        return self.why.code

    def render(self, translate: Translate = N_, ntranslate: NTranslate | None = None) -> str:
        return self.why.render(translate, ntranslate)


def commitment(seed: bytes) -> str:
    """The hex SHA-256 of the seed, shown to the players when the game starts."""
    return hashlib.sha256(seed).hexdigest()


def history_digest(history: Sequence[str]) -> bytes:
    """SHA-256 over the move texts, each prefixed with its UTF-8 length (4 bytes)."""
    digest = hashlib.sha256()
    for text in history:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(4, "big") + data)
    return digest.digest()


def _message(game_id: str, roll_number: int, digest: bytes, counter: int) -> bytes:
    game = game_id.encode("utf-8")
    return b"".join(
        [
            DOMAIN,
            len(game).to_bytes(4, "big"),
            game,
            roll_number.to_bytes(8, "big"),
            digest,
            counter.to_bytes(4, "big"),
        ]
    )


def unbiased_index(block: Callable[[int], bytes], count: int) -> int:
    """An index below ``count`` from 256-bit blocks ``block(0), block(1), ...``.

    Blocks at or above the largest multiple of ``count`` are rejected and the next one is
    tried, so every index is exactly equally likely.
    """
    if count < 1:
        raise ValueError("no outcomes to choose from")
    limit = 2**BLOCK_BITS - 2**BLOCK_BITS % count
    counter = 0
    while True:
        value = int.from_bytes(block(counter), "big")
        if value < limit:
            return value % count
        counter += 1


def roll(
    seed: bytes,
    game_id: str,
    roll_number: int,
    history: Sequence[str],
    outcomes: Sequence[str],
) -> str:
    """The outcome of roll ``roll_number`` (from 1) after the moves ``history``."""
    digest = history_digest(history)

    def block(counter: int) -> bytes:
        message = _message(game_id, roll_number, digest, counter)
        return hmac.new(seed, message, hashlib.sha256).digest()

    return outcomes[unbiased_index(block, len(outcomes))]


@dataclass
class DiceLog:
    """Plays one game with fair dice and keeps its record (for the service and tests).

    ``log.roll()`` applies the chance step due; ``log.play(seat, action)`` a move.
    """

    game: Game
    game_id: str
    seed: bytes
    state: State = field(init=False)
    history: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    rolls: int = 0

    def __post_init__(self) -> None:
        self.state = self.game.initial_state()

    def roll(self) -> Resolution:
        outcomes = self.state.chance_outcomes()
        self.rolls += 1
        outcome = roll(self.seed, self.game_id, self.rolls, self.history, outcomes)
        self.steps.append({"kind": "chance", "outcome": outcome})
        return self._advance(self.state.apply_chance(outcome))

    def play(self, seat: int, action: Any) -> Resolution:
        chosen = self.state.parse(seat, action) if isinstance(action, str) else action
        text = self.state.format(chosen)
        resolution = self.state.play(seat, chosen)
        self.history.append(text)
        self.steps.append({"kind": "move", "seat": seat, "text": text})
        return self._advance(resolution)

    def _advance(self, resolution: Resolution) -> Resolution:
        self.state = resolution.state
        return resolution

    def record(self, reveal: bool = False) -> dict[str, Any]:
        """The record; the seed only with ``reveal`` (when the game has ended)."""
        return {
            **self.game.to_json(),
            "game_id": self.game_id,
            "commitment": commitment(self.seed),
            "seed": self.seed.hex() if reveal else None,
            "steps": [dict(step) for step in self.steps],
        }


@dataclass(frozen=True)
class RollCheck:
    """One roll recomputed: ``step`` is its index in the record's steps, from 1."""

    number: int
    step: int
    recorded: str
    expected: str

    @property
    def matches(self) -> bool:
        return self.recorded == self.expected

    def describe(self, translate: Translate = N_) -> str:
        if self.matches:
            return translate(N_("roll {number}: {recorded} matches")).format(
                number=self.number, recorded=self.recorded
            )
        return translate(
            N_("roll {number}: recorded {recorded}, seed gives {expected} — MISMATCH")
        ).format(number=self.number, recorded=self.recorded, expected=self.expected)


@dataclass(frozen=True)
class Verification:
    """What :func:`verify` found: the commitment, each roll, and where a replay broke."""

    commitment_matches: bool
    checks: tuple[RollCheck, ...]
    problem: str | None = None

    @property
    def mismatches(self) -> tuple[RollCheck, ...]:
        return tuple(check for check in self.checks if not check.matches)

    @property
    def ok(self) -> bool:
        return self.commitment_matches and not self.mismatches and self.problem is None

    def lines(self, translate: Translate = N_) -> list[str]:
        """Roll by roll, then a summary line, as ``pbem dice verify`` prints them (in the
        language of ``translate``, a catalog's ``gettext``)."""
        commitment_line = (
            N_("commitment: SHA-256 of the seed matches")
            if self.commitment_matches
            else N_("commitment: SHA-256 of the seed differs — MISMATCH")
        )
        lines = [translate(commitment_line)]
        lines += [check.describe(translate) for check in self.checks]
        if self.problem:
            lines.append(translate(N_("replay stopped: {problem}")).format(problem=self.problem))
        lines.append(self.summary(translate))
        return lines

    def summary(self, translate: Translate = N_) -> str:
        total = len(self.checks)
        if self.ok:
            return translate(N_("OK: all {total} rolls match the committed seed")).format(
                total=total
            )
        faults = []
        if not self.commitment_matches:
            faults.append(translate(N_("the seed does not match the commitment")))
        if self.mismatches:
            first = self.mismatches[0].number
            faults.append(
                translate(N_("{count} of {total} rolls differ (first: roll {first})")).format(
                    count=len(self.mismatches), total=total, first=first
                )
            )
        if self.problem:
            faults.append(translate(N_("the moves do not replay")))
        return translate(N_("MISMATCH: {faults}")).format(faults="; ".join(faults))


def verify(record: Mapping[str, Any]) -> Verification:
    """Check a finished game's record: the commitment, then every roll, replaying the moves.

    Raises :class:`RecordError` when the record cannot be read or its seed is not revealed.
    """
    seed, game, game_id, steps = _read_record(record)
    matches = commitment(seed) == str(record["commitment"]).strip().lower()
    checks: list[RollCheck] = []
    history: list[str] = []
    start = record.get("start_position")
    try:
        state = game.parse_position(start) if isinstance(start, str) else game.initial_state()
    except EngineError as error:
        return Verification(matches, (), f"start position: {error}")
    for number, step in enumerate(steps, start=1):
        expects_roll = bool(state.chance_outcomes())
        if (step["kind"] == "chance") != expects_roll or (
            step["kind"] == "move" and step["seat"] not in state.to_act
        ):
            problem = f"step {number} records a {step['kind']} but the game says: {state.status()}"
            return Verification(matches, tuple(checks), problem)
        try:
            if expects_roll:
                rolled = roll(seed, game_id, len(checks) + 1, history, state.chance_outcomes())
                checks.append(RollCheck(len(checks) + 1, number, step["outcome"], rolled))
                state = state.apply_chance(step["outcome"]).state
            else:
                action = state.parse(step["seat"], step["text"])
                history.append(state.format(action))
                state = state.play(step["seat"], action).state
        except EngineError as error:
            return Verification(matches, tuple(checks), f"step {number}: {error}")
    return Verification(matches, tuple(checks))


def _read_record(record: Mapping[str, Any]) -> tuple[bytes, Game, str, list[dict[str, Any]]]:
    if not isinstance(record, Mapping):
        raise RecordError(Reason("record_not_object", N_("a dice record is a JSON object")))
    missing = [
        key for key in ("game", "game_id", "commitment", "seed", "steps") if key not in record
    ]
    if missing:
        reason = Reason("record_lacks", N_("the record lacks {keys}"), keys=", ".join(missing))
        raise RecordError(reason)
    if record["seed"] is None:
        reason = Reason(
            "seed_not_revealed",
            N_("the seed is not revealed yet: the rolls can be verified once the game has ended"),
        )
        raise RecordError(reason)
    try:
        seed = bytes.fromhex(str(record["seed"]))
    except ValueError:
        reason = Reason(
            "seed_not_hex", N_("the seed {seed!r} is not hexadecimal"), seed=record["seed"]
        )
        raise RecordError(reason) from None
    options, players = record.get("options") or {}, record.get("players")
    if not (isinstance(record["game"], str) and isinstance(options, Mapping)):
        reason = Reason(
            "record_game_options",
            N_("the record names its game as a string and its options as an object"),
        )
        raise RecordError(reason)
    if players is not None and not isinstance(players, int):
        raise RecordError(
            Reason("record_players", N_("players {players!r} is not a number"), players=players)
        )
    try:
        game = new_game(record["game"], options, players)
    except EngineError as error:
        raise RecordError(Reason("record_game", "{error}", error=error)) from None
    steps = record["steps"]
    if not isinstance(steps, list):
        raise RecordError(Reason("record_steps", N_("the record's steps must be a list")))
    for number, step in enumerate(steps, start=1):
        if not _is_step(step):
            reason = Reason(
                "record_step",
                N_(
                    "step {number} is neither {{'kind': 'chance', 'outcome': ...}} "
                    "nor {{'kind': 'move', 'seat': n, 'text': ...}}"
                ),
                number=number,
            )
            raise RecordError(reason)
    return seed, game, str(record["game_id"]), steps


def _is_step(step: Any) -> bool:
    if not isinstance(step, dict):
        return False
    if step.get("kind") == "chance":
        return isinstance(step.get("outcome"), str)
    return (
        step.get("kind") == "move"
        and isinstance(step.get("seat"), int)
        and isinstance(step.get("text"), str)
    )
