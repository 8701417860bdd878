"""Our own reply corpus: real notifications of all five games, answered as people and their
mail clients really answer them, each reply with the action a person would read in it.

Every case starts from a ``your_turn`` mail rendered by the service's own templates for a real
position (``render_email``), then wraps a typed text the way one client quotes (Gmail in
English and German, Apple Mail, Thunderbird, Outlook plain and HTML, Mutt interleaved, a phone
bottom-post, clients that keep only part of the quote...), in the languages the reader knows.
The move typed is never one of the notification's example moves, so a quoted example played
by mistake shows up as a wrong move.

``CASES`` is built once, deterministically (seeded positions, fixed shapes). The figure (how
many are read as expected) is kept from falling by ``test_own_reply_corpus.py`` and printed by
``python3 bench/reply_corpus.py``.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime
from html import escape

import engine
from engine import State
from service.mail.render import RenderedEmail, render_email
from tests.mail import scenarios

ADDRESS = scenarios.REPLY_TO
WHEN = scenarios.DEADLINE


@dataclass(frozen=True)
class Position:
    """A game at a moment where the reader must find one player's move."""

    label: str
    state: State
    seat: int
    move: str
    """The move typed (as a person types it, maybe over several lines)."""
    action: str
    """Its canonical text: what must be played."""
    other: str
    """A second legal move, different from ``move``, for ambiguous replies."""


@dataclass(frozen=True)
class Case:
    name: str
    position: Position
    raw: bytes
    expected: str
    """"move" (``position.action`` is played), "nothing" (no move played: ambiguous or
    unreadable), or a command kind ("board", "draw", "resign")."""
    examples: tuple[str, ...]
    """The example moves the quoted notification shows."""


def _settled(state: State, rng: random.Random) -> State:
    while state.chance_outcomes():
        state = state.apply_chance(rng.choice(state.chance_outcomes())).state
    return state


def _walk(name: str, options: dict[str, str], wanted: Callable[[State, int], object]) -> State:
    """The first position of seeded playouts where ``wanted`` finds something."""
    for seed in range(50):
        rng = random.Random(seed)
        state = _settled(engine.new_game(name, options).initial_state(), rng)
        while not state.is_over:
            seat = state.to_act[0]
            if wanted(state, seat) is not None:
                return state
            state = _settled(state.play(seat, state.random_action(seat, rng)).state, rng)
    raise AssertionError(f"{name}: no position found")


def _position(label: str, state: State, action: object, split: bool = False) -> Position:
    seat = state.to_act[0]
    rng = random.Random(label)
    examples = set(state.examples(seat))
    canonical = state.format(action)
    others = [state.format(state.random_action(seat, rng)) for _ in range(60)]
    other = next((o for o in others if o != canonical and o not in examples), None)
    other = other or next((o for o in others if o != canonical), canonical)
    typed = canonical
    if split:  # orders written over two lines, as people do
        words = canonical.split()
        half = max(1, len(words) // 2)
        typed = " ".join(words[:half]) + "\n" + " ".join(words[half:])
    return Position(label, state, seat, typed, canonical, other)


def _fresh(name: str, rng: random.Random, options: dict[str, str] | None = None) -> State:
    return _settled(engine.new_game(name, options or {}).initial_state(), rng)


def _unlisted(state: State, seat: int, rng: random.Random) -> object:
    """A legal action that is not one of the mail's examples."""
    examples = set(state.examples(seat))
    while True:
        action = state.random_action(seat, rng)
        if state.format(action) not in examples:
            return action


def _elasta_pairs(state: State, action: object) -> str:
    digits = state.format(action)
    pairs = [f"{file}{chip}" for file, chip in zip("abcdefgh", digits, strict=True)]
    return " ".join(pairs[:4]) + "\n" + " ".join(pairs[4:])


def _chain(state: State, seat: int) -> object:
    rng = random.Random(seat)
    for _ in range(40):
        action = state.random_action(seat, rng)
        if isinstance(action, tuple):
            return action
    return None


def _with_choices(state: State, seat: int) -> object:
    return next((a for a in state.legal_actions(seat) if getattr(a, "choices", ())), None)


@functools.cache
def positions() -> tuple[Position, ...]:
    rng = random.Random(scenarios.SEED)
    found = []
    for name in ("epaminondas", "anti-grid", "elemento", "nelaxtam"):
        state = _fresh(name, rng)
        found.append(
            _position(name, state, _unlisted(state, state.to_act[0], rng), name == "nelaxtam")
        )
    elasta = _fresh("elasta", rng)
    action = _unlisted(elasta, 0, rng)
    plain = _position("elasta", elasta, action)
    found.append(
        Position("elasta", elasta, 0, _elasta_pairs(elasta, action), plain.action, plain.other)
    )
    chain_state = _walk("anti-grid", {"chain": "on"}, _chain)
    chain = _chain(chain_state, chain_state.to_act[0])
    found.append(_position("anti-grid chain", chain_state, chain, split=True))
    choice_state = _walk("elemento", {}, _with_choices)
    choice = _with_choices(choice_state, choice_state.to_act[0])
    found.append(_position("elemento removal", choice_state, choice, split=True))
    return tuple(found)


def notification(position: Position) -> RenderedEmail:
    context = {
        "player_name": "Bob",
        "timezone": "Europe/Paris",
        "preferences_url": "https://pbem.example/settings",
        "unsubscribe_url": "https://pbem.example/unsubscribe/t0k3n",
        **scenarios._game(position.state, position.seat),
        "turn": 4,
        "deadline": WHEN,
    }
    return render_email("your_turn", context)


# -- what people type ---------------------------------------------------------------------

Typed = Callable[[Position], tuple[str, str]]
"""A reply's typed text and the expected action ("move", "nothing" or a command kind)."""

SHAPES: dict[str, Typed] = {
    "bare": lambda p: (p.move, "move"),
    "en greeting, thanks, name": lambda p: (f"Hi Ann,\n\n{p.move}\n\nThanks!\nCarol", "move"),
    "en initials": lambda p: (f"{p.move}\n\n– J.", "move"),
    "en remark after": lambda p: (f"{p.move}\nThat makes it 3-2 for me, I think.", "move"),
    "en label": lambda p: (f"my move: {p.move}\n\ncheers", "move"),
    "en sign-off with office block": lambda p: (
        f"{p.move}\n\nBest, Dana\nACME Corp, Main Street 5, 10115 Berlin\nPhone +49 30 1234567",
        "move",
    ),
    "de label": lambda p: (f"Hallo Ann,\n\nMein Zug: {p.move}\n\nViele Grüße\nJörg", "move"),
    "fr label own line": lambda p: (f"Bonjour,\n\nMon coup :\n{p.move}\n\nMerci !\nLéa", "move"),
    "es": lambda p: (f"Hola!\n{p.move}\nUn saludo,\nDiego", "move"),
    "it": lambda p: (f"Ciao Ann,\nla mia mossa: {p.move}\nSaluti\nMarco", "move"),
    "nl": lambda p: (f"Hoi,\n\n{p.move}\n\nGroet,\nPiet", "move"),
    "pt": lambda p: (f"Olá Ann\nMinha jogada: {p.move}\nAbraços,\nJoão", "move"),
    "pl": lambda p: (f"Cześć,\nMój ruch: {p.move}\nPozdrawiam\nKasia", "move"),
    "ru": lambda p: (f"Привет!\nМой ход: {p.move}\nСпасибо\nИван", "move"),
    "board word in a sentence": lambda p: (
        f"Nice board, I did not see that coming.\n{p.move}",
        "move",
    ),
    "closing above the move": lambda p: (f"Sorry for the wait.\nGood luck!\n{p.move}", "move"),
    "command plus prose": lambda p: ("board\nThanks, and sorry for the delay.", "board"),
    "draw plus prose": lambda p: ("draw\nWell played so far!", "draw"),
    "two different moves": lambda p: (f"{p.move}\nor maybe {p.other}?", "nothing"),
    "illegal move": lambda p: ("Hi,\nz1-z2\nthanks", "nothing"),
}


# -- how clients quote ----------------------------------------------------------------------

Client = Callable[[RenderedEmail, str], EmailMessage]


def _quoted(text: str, prefix: str = "> ") -> str:
    return "\n".join((prefix + line).rstrip() for line in text.splitlines())


def _message(body: str, html: str | None = None) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Bob <bob@example.org>"
    message["To"] = ADDRESS
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = "<corpus@example.org>"
    message["Date"] = format_datetime(WHEN)
    message.set_content(body)
    if html is not None:
        message.add_alternative(html, subtype="html")
    return message


def _top(attribution: str, prefix: str = "> ") -> Client:
    return lambda mail, typed: _message(f"{typed}\n\n{attribution}\n{_quoted(mail.text, prefix)}\n")


def _partial(attribution: str) -> Client:
    """A client quoting only the part the player selected: our marker line is lost."""

    def build(mail: RenderedEmail, typed: str) -> EmailMessage:
        kept = "\n".join(mail.text.splitlines()[2:])
        return _message(f"{typed}\n\n{attribution}\n{_quoted(kept)}\n")

    return build


def _outlook(mail: RenderedEmail, typed: str) -> EmailMessage:
    header = (
        "________________________________\nDa: pbem <" + ADDRESS + ">\n"
        "Inviato: sabato 1 marzo 2025 17:00\nA: Bob <bob@example.org>\nOggetto: Your turn"
    )
    return _message(f"{typed}\n\n{header}\n\n{mail.text}\n")


def _outlook_html_sent_first(mail: RenderedEmail, typed: str) -> EmailMessage:
    """Outlook on the web in Dutch, quote header starting with "Verzonden:", no container id."""
    lines = "".join(f"<div>{escape(line)}</div>" for line in typed.splitlines())
    header = (
        "<div><b>Verzonden:</b> zaterdag 1 maart 2025 17:00<br><b>Van:</b> pbem &lt;"
        f"{ADDRESS}&gt;<br><b>Aan:</b> Bob<br><b>Onderwerp:</b> Your turn</div>"
    )
    html = f"<html><body>{lines}<div><br></div>{header}<div>{mail.html}</div></body></html>"
    message = EmailMessage()
    for name, value in _message("x").items():
        if name.lower() not in ("content-type", "content-transfer-encoding", "mime-version"):
            message[name] = value
    message.set_content(html, subtype="html")
    return message


def _gmail_html(mail: RenderedEmail, typed: str) -> EmailMessage:
    lines = "".join(f"<div>{escape(line) or '<br>'}</div>" for line in typed.splitlines())
    attribution = f"On Sat, Mar 1, 2025 at 5:00 PM pbem &lt;{ADDRESS}&gt; wrote:"
    html = (
        f'<div dir="ltr">{lines}</div><br><div class="gmail_quote"><div dir="ltr" '
        f'class="gmail_attr">{attribution}<br></div><blockquote class="gmail_quote">'
        f"{mail.html}</blockquote></div>"
    )
    attribution_text = f"On Sat, Mar 1, 2025 at 5:00 PM pbem <{ADDRESS}> wrote:"
    return _message(f"{typed}\n\n{attribution_text}\n\n{_quoted(mail.text)}\n", html)


def _mutt_interleaved(mail: RenderedEmail, typed: str) -> EmailMessage:
    """Text typed between quoted blocks, the top of the quote snipped with "[...]"."""
    lines = mail.text.splitlines()
    board_end = next(i for i, line in enumerate(lines) if line.startswith("Type your"))
    body = (
        f"* pbem <{ADDRESS}> [2025-03-01 17:00 +0100]:\n"
        f"> Your turn, Bob:\n[...]\n\n{typed}\n\n"
        f"{_quoted(chr(10).join(lines[board_end : board_end + 3]))}\n\n[snip]\n"
    )
    return _message(body)


def _tight_interleaved(mail: RenderedEmail, typed: str) -> EmailMessage:
    """Typed straight between two quoted lines, no blank line around it."""
    lines = mail.text.splitlines()
    examples = next(line for line in lines if line.startswith(("For example", "Valid now")))
    body = f"Bob wrote:\n> Your turn, Bob:\n{typed}\n> {examples}\n> [...]\n"
    return _message(body)


def _bottom(mail: RenderedEmail, typed: str) -> EmailMessage:
    """A phone bottom-post: the quote first, the reply under it."""
    return _message(
        f"On 1 Mar 2025, at 17:00, pbem <{ADDRESS}> wrote:\n\n{_quoted(mail.text)}\n\n{typed}\n"
    )


def _huge_bottom(mail: RenderedEmail, typed: str) -> EmailMessage:
    """A bottom-post under a quote of a long thread: over 200,000 characters above the move."""
    thread = "\n\n".join([mail.text] * (220_000 // len(mail.text) + 1))
    return _message(f"pbem <{ADDRESS}> wrote:\n{_quoted(thread)}\n\n{typed}\n")


def _pasted(mail: RenderedEmail, typed: str) -> EmailMessage:
    """The original pasted under the reply without quote marks or header, marker lost."""
    kept = "\n".join(mail.text.splitlines()[2:])
    return _message(f"{typed}\n\n{kept}\n")


def _outlook_marker_lost(mail: RenderedEmail, typed: str) -> EmailMessage:
    kept = "\n".join(mail.text.splitlines()[2:])
    header = (
        f"From: pbem <{ADDRESS}>\nSent: Saturday, March 1, 2025 5:00 PM\nTo: Bob\nSubject: Turn"
    )
    return _message(f"{typed}\n\n{header}\n\n{kept}\n")


CLIENTS: dict[str, Client] = {
    "pasted below, marker lost": _pasted,
    "outlook en, marker lost": _outlook_marker_lost,
    "gmail en": _top(f"On Sat, Mar 1, 2025 at 5:00 PM pbem <{ADDRESS}> wrote:"),
    "gmail de": _top(f"Am Sa., 1. März 2025 um 17:00 Uhr schrieb pbem <{ADDRESS}>:"),
    "gmail de mobile, marker lost": _partial(
        f"pbem <{ADDRESS}> schrieb am Sa., 1. März 2025, 17:00:"
    ),
    "apple fr": _top(f"Le 1 mars 2025 à 17:00, pbem <{ADDRESS}> a écrit :"),
    "thunderbird es, marker lost": _partial("El 1/3/25 a las 17:00, pbem escribió:"),
    "outlook it": _outlook,
    "outlook web nl, Verzonden first": _outlook_html_sent_first,
    "name and address, no date, pt, marker lost": _partial(f"pbem <{ADDRESS}> escreveu:"),
    "thunderbird pl": _top("W dniu 1.03.2025 o 17:00, pbem pisze:"),
    "ru, marker lost": _partial("01.03.2025 17:00, pbem пишет:"),
    "uk, marker lost": _partial(f"pbem <{ADDRESS}> пише:"),
    "gmail html": _gmail_html,
    "mutt interleaved": _mutt_interleaved,
    "interleaved without blank lines": _tight_interleaved,
    "phone bottom-post": _bottom,
}


@functools.cache
def cases() -> tuple[Case, ...]:
    built = []
    clients = list(CLIENTS.items())
    for p_index, position in enumerate(positions()):
        mail = notification(position)
        examples = tuple(position.state.examples(position.seat))
        for s_index, (shape, typed_of) in enumerate(SHAPES.items()):
            if position.label not in ("epaminondas", "anti-grid", "elemento") and s_index > 11:
                continue  # the command and ambiguity shapes: enough from three games
            client_name, client = clients[(s_index + 3 * p_index) % len(clients)]
            typed, expected = typed_of(position)
            raw = client(mail, typed).as_bytes()
            name = f"{position.label} / {shape} / {client_name}"
            built.append(Case(name, position, raw, expected, examples))
        for client_name, client in (("huge bottom-post", _huge_bottom),):
            raw = client(mail, f"{position.move}\n\nThanks").as_bytes()
            name = f"{position.label} / bare / {client_name}"
            built.append(Case(name, position, raw, "move", examples))
    return tuple(built)


# -- the figure -----------------------------------------------------------------------------

Judge = Callable[[str], str]
Reader = Callable[[bytes, Judge], tuple[list[str], list[str]]]
"""Reads a raw reply against a judge: (moves played, canonical; commands done, by kind)."""


@dataclass(frozen=True)
class Score:
    total: int
    read: int
    """Cases whose expected action, and nothing else, was taken."""
    wrong: int
    """Moves played that were not the one typed."""
    examples: int
    """Of those, moves that are one of the quoted notification's examples."""
    missed: tuple[str, ...]


def judge(position: Position) -> Judge:
    from service.games import read_action

    return lambda text: read_action(position.state, position.seat, text)


def reader(raw: bytes, judge: Judge) -> tuple[list[str], list[str]]:
    """The gateway's reading step without a database: extract, then ``reading.read_reply``."""
    from service.mail.commands import Kind
    from service.mail.extract import extract_reply
    from service.mail.reading import read_reply

    reply = extract_reply(raw)
    reading = read_reply(reply.text, judge, reply.signature)
    moves = [c.argument for c in reading.commands if c.kind is Kind.MOVE]
    done = [c.kind.value for c in reading.commands if c.kind not in (Kind.MOVE, Kind.ERROR)]
    return moves, done


def score(reader: Reader) -> Score:
    read = wrong = examples = 0
    missed = []
    for case in cases():
        moves, commands = reader(case.raw, judge(case.position))
        bad = [move for move in moves if move != case.position.action]
        wrong += len(bad)
        examples += sum(1 for move in bad if move in case.examples)
        if case.expected == "move":
            good = moves == [case.position.action] and not commands
        elif case.expected == "nothing":
            good = not moves and not commands
        else:
            good = not moves and commands == [case.expected]
        read += good
        if not good:
            missed.append(f"{case.name}: played {moves}, commands {commands}")
    return Score(len(cases()), read, wrong, examples, tuple(missed))
