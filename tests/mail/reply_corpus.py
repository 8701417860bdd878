"""Our own reply corpus: real notifications of all five games, answered as people and their
mail clients really answer them, each reply with the action a person would read in it.

Every case starts from a ``your_turn`` mail rendered by the service's own templates for a real
position (``render_email``), then wraps a typed text the way one client quotes (Gmail in
English and German, Apple Mail, Thunderbird, Outlook plain and HTML, Mutt interleaved, a phone
bottom-post, clients that keep only part of the quote...), in the languages the reader knows.
The move typed is never one of the notification's example moves, so a quoted example played
by mistake shows up as a wrong move.

Round two (``round_two()``, issue 20) answers the mails the service sends now, rendered by its
renderer for real positions of seeded playouts (``opponent_moved``, ``turn_resolved``,
``reminder``, ``draw_news``, ``game_started``, ``your_turn``), for both seats of every game and
Elemento with three and four players, through the clients of ``mail_clients.py`` (phones with
autocorrect, Outlook for iOS, IBM Notes, Zimbra, FairEmail, QQ Mail, Mail.ru, Yandex, ...;
UTF-8, GB18030, KOI8-R, ISO-2022-JP, windows-1255; quoted-printable, base64, format=flowed),
with what far-away keyboards, corporate signatures and second thoughts make of a move.

``cases()`` is built once, deterministically (seeded positions, fixed shapes). The figure (how
many are read as expected) is kept from falling by ``test_own_reply_corpus.py`` and printed by
``python3 bench/reply_corpus.py``.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime
from html import escape

import engine
from engine import Event, State
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
    return tuple(built) + round_two()


@functools.cache
def round_two() -> tuple[Case, ...]:
    """The replies to the mails the service sends now, through ``mail_clients.CLIENTS``."""
    from tests.mail.mail_clients import CLIENTS as REAL_CLIENTS

    built = []
    for label, client_name, typed_name in ROUND_TWO:
        moment = moments()[label]
        position = moment.position
        typed, expected = TYPED[typed_name](position)
        raw = REAL_CLIENTS[client_name](moment_mail(moment), typed)
        examples = tuple(position.state.examples(position.seat))
        name = f"{label} / {typed_name} / {client_name}"
        built.append(Case(name, position, raw, expected, examples))
    return tuple(built)


# -- round two: the mails the service sends now, as thirty-odd clients answer them ---------
#
# Each mail is rendered by the service's renderer for a real position reached by a seeded
# playout: the mail that asks that seat to act (``your_turn``, ``opponent_moved`` after the
# previous seat's move, ``turn_resolved`` after a sealed turn, ``reminder``, ``draw_news``,
# ``game_started``), for both seats of every game and for Elemento with three and four
# players. Each reply is wrapped by one of ``mail_clients.CLIENTS`` around a typed text
# (``TYPED``): the typography of phones and far-away keyboards, right-to-left greetings,
# self-corrections, commands in short sentences, a move in a form the notation does not take.


@dataclass(frozen=True)
class Moment:
    """A mail the service sends, and the position its reader must act in."""

    label: str
    kind: str
    position: Position
    context: dict[str, object]


def _reader_position(label: str, state: State, seat: int) -> Position | None:
    """``seat``'s position in ``state``: a legal action the mail does not show, and another
    (None when the position has too few to choose from)."""
    rng = random.Random(label)
    examples = set(state.examples(seat))
    unlisted = {state.format(state.random_action(seat, rng)) for _ in range(80)} - examples
    if len(unlisted) < 2:
        return None
    canonical, other = sorted(unlisted)[:2]
    return Position(label, state, seat, canonical, canonical, other)


@dataclass(frozen=True)
class _Step:
    before: State
    mover: int
    move: str
    events: tuple[Event, ...]
    after: State


def _steps(name: str, players: int | None, seed: int) -> Iterator[_Step]:
    """Each action of a seeded game (a sealed turn's orders count as one), chance settled."""
    rng = random.Random(seed)
    game = engine.new_game(name, {}, players=players)
    state = _settled(game.initial_state(), rng)
    while not state.is_over:
        before = state
        if state.simultaneous:
            for seat in state.to_act:
                state = state.submit(seat, state.random_action(seat, rng))
            mover, move, resolution = 0, "", state.resolve()
        else:
            mover = state.to_act[0]
            action = state.random_action(mover, rng)
            move, resolution = state.format(action), state.play(mover, action)
        state = _settled(resolution.state, rng)
        yield _Step(before, mover, move, resolution.events, state)


def _moment(
    name: str, kind: str, seat: int, *, after: int = 0, players: int | None = None
) -> Moment:
    """The first mail of ``kind`` to ``seat`` at least ``after`` actions into a seeded game."""
    game = engine.new_game(name, {}, players=players)
    title = f"{name}{f' {players}p' if players else ''} {game.seat_names[seat]} {kind}"
    for number, step in enumerate(_steps(name, players, 7)):
        state = step.before if kind in ("game_started", "draw_news", "reminder") else step.after
        if number < after or seat not in state.to_act:
            continue
        if kind == "game_started" and number:
            break
        position = _reader_position(title, state, seat)
        if position is not None:
            return Moment(title, kind, position, _context(kind, step, state, seat, number))
    raise AssertionError(f"no {kind} mail to seat {seat} of {name}")


def _context(kind: str, step: _Step, state: State, seat: int, number: int) -> dict[str, object]:
    """What the service puts in a mail of ``kind`` to ``seat`` (see ``render.KINDS``)."""
    context: dict[str, object] = {
        "player_name": "Bob",
        "timezone": "Europe/Paris",
        "preferences_url": "https://pbem.example/settings",
        "unsubscribe_url": "https://pbem.example/unsubscribe/t0k3n",
        # As ``notify.game_context`` adds them to every game mail.
        "play_url": f"https://pbem.example/play/17.{number + 2}.{seat + 1}.f5mj6femos34riy2xrva",
        "chain_link": f"chain #{number + 1} 5a10e4d0374a233c34bda6ef933b0ee978c60afeca48e49e41a1",
        **scenarios._game(state, seat),
    }
    events = [event.to_json() for event in step.events]
    if kind == "your_turn":
        context |= {"turn": number + 2, "deadline": WHEN}
    elif kind == "reminder":
        warning = "Miss the next deadline and you forfeit the game (one more miss loses)."
        context |= {"turn": number + 1, "deadline": WHEN, "hours_left": 5.2, "warning": warning}
    elif kind == "draw_news":
        context |= {"actor": (seat + 1) % state.game.players, "news": "offered a draw"}
    elif kind == "game_started":
        commitment = "5e" * 32 if state.chance_outcomes() or state.game.name == "elemento" else None
        context |= {"deadline": WHEN, "commitment": commitment}
    elif kind == "opponent_moved":
        context |= {"mover": step.mover, "move": step.move, "events": events, "deadline": WHEN}
    elif kind == "turn_resolved":
        before = step.before
        seats = [
            {
                "seat": s,
                "name": before.game.seat_names[s],
                "orders": before.format(before.random_action(s, random.Random(s))),
                "salt": f"{s + 1:x}" * 32,
                "receipt": f"{s + 7:x}" * 64,
            }
            for s in range(before.game.players)
        ]
        receipts = {"game_id": 17, "turn": number + 1, "seats": seats}
        context |= {"turn": number + 1, "events": events, "deadline": WHEN, "receipts": receipts}
    return context


def _fullwidth(text: str) -> str:
    """As a Japanese or Chinese IME in full-width mode types it (the minus for the hyphen)."""
    wide = {"-": "\u2212", " ": "\u3000"}
    return "".join(wide.get(c, chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c) for c in text)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


TYPED: dict[str, Typed] = {
    "bare": lambda p: (p.action, "move"),
    # Finding 1: a label ending in the full-width colon of CJK keyboards, glued to the orders.
    "orders after a full-width colon (zh label)": lambda p: (
        f"我的命令：{p.action}\n谢谢！",
        "move",
    ),
    "orders after a full-width colon (ja label)": lambda p: (
        f"指し手：{p.action}\nよろしくお願いします。",
        "move",
    ),
    # Finding 2: what autocorrect and input methods make of a move.
    "en dash (autocorrect)": lambda p: (_capitalised(p.action.replace("-", "–")), "move"),
    "spaced en dash (Word autoformat)": lambda p: (p.action.replace("-", " – "), "move"),
    "em dash from a double hyphen": lambda p: (p.action.replace("-", "—"), "move"),
    "minus sign": lambda p: (p.action.replace("-", "\u2212"), "move"),
    "full-width (IME)": lambda p: (_fullwidth(p.action), "move"),
    "curly quotes, capitalised": lambda p: (f"“{_capitalised(p.action)}” – thanks!", "move"),
    "non-breaking spaces": lambda p: (f"Mein Zug:\xa0{p.action.replace(' ', chr(0xA0))}", "move"),
    # Finding 3: right-to-left and far-away greetings (the clients bring the headers).
    "Hebrew greeting": lambda p: (f"\u200fשלום,\n{p.action}\n\u200fתודה", "move"),
    "Arabic greeting": lambda p: (f"مرحبا\n{p.action}\nشكرا", "move"),
    "Russian greeting": lambda p: (f"Привет!\nМой ход: {p.action}\nСпасибо", "move"),
    "Chinese prose around": lambda p: (f"你好，\n{p.action}\n祝好", "move"),
    # Finding 5: the reply itself withdraws one of two moves.
    "not X, I mean Y": lambda p: (f"not {p.other}, I mean {p.action}", "move"),
    "X... sorry, Y": lambda p: (f"{p.other}… sorry, {p.action}", "move"),
    "X (typo, I meant Y)": lambda p: (f"{p.other} (typo, I meant {p.action})", "move"),
    "two moves, no correction": lambda p: (f"{p.action}\nor {p.other}?", "nothing"),
    # Finding 6: commands in short prose; a resignation with doubt is confirmed first.
    "I resign. Good game!": lambda p: ("I resign. Good game!", "resign"),
    "resign with doubt": lambda p: ("Should I resign? I really don't see a way out.", "confirm"),
    "not resigning, and the move": lambda p: (f"Not resigning yet!\n{p.action}", "move"),
    # Finding 7: readable, but not the notation: nothing is played (the answer suggests it).
    "from-to in words": lambda p: (p.action.replace("-", " to "), "nothing"),
}

ROUND_TWO: tuple[tuple[str, str, str], ...] = (
    ("epaminondas Black opponent_moved", "iPhone Mail", "em dash from a double hyphen"),
    ("epaminondas Black opponent_moved", "Gmail he", "Hebrew greeting"),
    ("epaminondas Black opponent_moved", "Outlook for iOS", "from-to in words"),
    ("epaminondas Black opponent_moved", "Mail.ru app", "Russian greeting"),
    ("epaminondas Black opponent_moved", "HCL Notes", "bare"),
    ("epaminondas White reminder", "FairEmail", "X... sorry, Y"),
    ("epaminondas White reminder", "Becky!, ISO-2022-JP", "full-width (IME)"),
    ("epaminondas White reminder", "K-9 Mail", "I resign. Good game!"),
    ("epaminondas White reminder", "Samsung Email", "resign with doubt"),
    ("epaminondas White reminder", "Outlook en, UK company footer", "from-to in words"),
    ("anti-grid Blue opponent_moved", "Outlook for Android", "spaced en dash (Word autoformat)"),
    ("anti-grid Blue opponent_moved", "FairEmail, time zone hidden", "from-to in words"),
    ("anti-grid Blue opponent_moved", "Gmail ar", "Arabic greeting"),
    ("anti-grid Blue opponent_moved", "Zimbra", "not X, I mean Y"),
    ("anti-grid Blue opponent_moved", "Outlook de, company footer", "X (typo, I meant Y)"),
    ("anti-grid Red draw_news", "Thunderbird ko", "bare"),
    ("anti-grid Red draw_news", "Yandex Mail", "not resigning, and the move"),
    ("anti-grid Red draw_news", "Yahoo Mail for Android", "minus sign"),
    ("anti-grid Red draw_news", "Gmail for Android", "en dash (autocorrect)"),
    ("elasta White turn_resolved", "Outlook de, company footer", "bare"),
    (
        "elasta White turn_resolved",
        "QQ Mail, GB18030",
        "orders after a full-width colon (zh label)",
    ),
    ("elasta White turn_resolved", "HCL Notes", "X (typo, I meant Y)"),
    ("elasta White turn_resolved", "Mail.ru web, HTML only", "two moves, no correction"),
    ("elasta Black reminder", "Outlook en, UK company footer", "bare"),
    ("elasta Black reminder", "The Bat!, KOI8-R", "Russian greeting"),
    ("elasta Black reminder", "Gmail ja", "full-width (IME)"),
    ("elasta Black reminder", "163 Mail, GB18030", "orders after a full-width colon (zh label)"),
    ("elasta Black reminder", "Yandex Mail", "X... sorry, Y"),
    ("nelaxtam X game_started", "QQ Mail en", "orders after a full-width colon (zh label)"),
    ("nelaxtam X game_started", "Thunderbird zh-CN", "Chinese prose around"),
    ("nelaxtam X game_started", "Tuta, HTML only", "bare"),
    ("nelaxtam O turn_resolved", "Gmail ja", "orders after a full-width colon (ja label)"),
    ("nelaxtam O turn_resolved", "Proton Mail", "not X, I mean Y"),
    ("nelaxtam O turn_resolved", "Outlook he, windows-1255", "Hebrew greeting"),
    ("nelaxtam O turn_resolved", "Roundcube de", "non-breaking spaces"),
    ("nelaxtam O turn_resolved", "Mail.ru app", "resign with doubt"),
    ("elemento Dark opponent_moved", "Apple Mail, flowed", "curly quotes, capitalised"),
    ("elemento Dark opponent_moved", "Evolution", "X... sorry, Y"),
    ("elemento Dark opponent_moved", "Thunderbird ar", "bare"),
    ("elemento Light your_turn", "Claws Mail", "I resign. Good game!"),
    ("elemento Light your_turn", "Horde", "full-width (IME)"),
    ("elemento Light your_turn", "SOGo", "two moves, no correction"),
    ("elemento 3p South opponent_moved", "Spark", "bare"),
    ("elemento 3p South opponent_moved", "Zimbra de", "X (typo, I meant Y)"),
    ("elemento 3p South opponent_moved", "Gmail for Android", "resign with doubt"),
    ("elemento 3p North your_turn", "K-9 Mail", "em dash from a double hyphen"),
    ("elemento 3p North your_turn", "iPhone Mail", "not resigning, and the move"),
    ("elemento 4p West opponent_moved", "Outlook for iOS", "Hebrew greeting"),
    ("elemento 4p West opponent_moved", "FairEmail", "not X, I mean Y"),
    ("elemento 4p East reminder", "Samsung Email", "bare"),
    (
        "elemento 4p East reminder",
        "QQ Mail, GB18030",
        "orders after a full-width colon (zh label)",
    ),
    # Our marker line lost: the clients' own quote headers must end the reply.
    ("epaminondas Black opponent_moved", "Gmail he, marker lost", "bare"),
    ("epaminondas White reminder", "Mail.ru app, marker lost", "bare"),
    ("epaminondas White reminder", "Tuta, HTML only, marker lost", "bare"),
    ("anti-grid Red draw_news", "Yandex Mail, marker lost", "bare"),
    ("anti-grid Blue opponent_moved", "Becky!, ISO-2022-JP, marker lost", "bare"),
    ("elasta Black reminder", "Gmail ar, marker lost", "bare"),
    ("elasta Black reminder", "Zimbra de, marker lost", "bare"),
    ("elasta White turn_resolved", "Thunderbird ko, marker lost", "bare"),
    ("nelaxtam O turn_resolved", "FairEmail, marker lost", "bare"),
    ("nelaxtam X game_started", "Outlook he, windows-1255, marker lost", "Hebrew greeting"),
    ("elemento Dark opponent_moved", "QQ Mail, GB18030, marker lost", "Chinese prose around"),
    ("elemento 3p South opponent_moved", "Thunderbird zh-CN, marker lost", "bare"),
    ("elemento 4p West opponent_moved", "Mail.ru web, HTML only, marker lost", "bare"),
    ("elemento Light your_turn", "Thunderbird ar, marker lost", "bare"),
)
"""Round two's replies: (mail, client, what was typed)."""


@functools.cache
def moments() -> dict[str, Moment]:
    """The mails of round two, by label (game, seat, mail)."""
    found = [
        _moment("epaminondas", "opponent_moved", 1),
        _moment("epaminondas", "reminder", 0, after=4),
        _moment("anti-grid", "opponent_moved", 1, after=4),
        _moment("anti-grid", "draw_news", 0, after=2),
        _moment("elasta", "turn_resolved", 0),
        _moment("elasta", "reminder", 1, after=2),
        _moment("nelaxtam", "game_started", 1),
        _moment("nelaxtam", "turn_resolved", 0),
        _moment("elemento", "opponent_moved", 1, after=2),
        _moment("elemento", "your_turn", 0, after=3),
        _moment("elemento", "opponent_moved", 2, players=3, after=1),
        _moment("elemento", "your_turn", 0, players=3, after=3),
        _moment("elemento", "opponent_moved", 3, players=4, after=2),
        _moment("elemento", "reminder", 1, players=4, after=4),
    ]
    return {moment.label: moment for moment in found}


def moment_mail(moment: Moment) -> RenderedEmail:
    """The mail the service sends at ``moment``, rendered by its own renderer."""
    return render_email(moment.kind, moment.context)


# -- the figure -----------------------------------------------------------------------------

Judge = Callable[[str], str]
Reader = Callable[[bytes, Position], tuple[list[str], list[str]]]
"""Reads a raw reply for a position's player: (moves played, canonical; commands done, by
kind)."""


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


def legal(position: Position) -> Callable[[], Sequence[str]]:
    """The legal actions of the position's reader, as the gateway lists them."""
    from service.games import legal_texts

    return lambda: legal_texts(position.state, position.seat)


def reader(raw: bytes, position: Position) -> tuple[list[str], list[str]]:
    """The gateway's reading step without a database: extract, then ``reading.read_reply``."""
    from service.mail.commands import Kind
    from service.mail.extract import extract_reply
    from service.mail.reading import read_reply

    reply = extract_reply(raw)
    reading = read_reply(reply.text, judge(position), reply.signature, legal(position))
    moves = [c.argument for c in reading.commands if c.kind is Kind.MOVE]
    done = [c.kind.value for c in reading.commands if c.kind not in (Kind.MOVE, Kind.ERROR)]
    return moves, done


def score(reader: Reader) -> Score:
    read = wrong = examples = 0
    missed = []
    for case in cases():
        moves, commands = reader(case.raw, case.position)
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
