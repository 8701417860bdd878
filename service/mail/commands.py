"""What a reply asks for: the typed text (see ``extract.py``) read line by line into commands.

Replies to a game's mail are read by ``reading.py``, which takes its commands from
``read_command`` (a whole line, strictly) or ``read_command_in_prose`` (one clause of a short
line of prose: "I resign. Good game!"), asks ``resignation_doubt`` whether a resignation is
meant at all, and lets the game decide what is a move; the line-by-line reading below
(``read_commands``) is what league invitation answers use.

``read_commands(text)`` never raises and never consults a game: it only sorts lines. Whether a
move is legal is the engine's business, and its error quotes what was read. The service runs
the commands in the order returned and tells the player what it did with each one, using
``line`` (what was read) and ``note`` (why a line was not used, for the kinds that need one).

How a line is read, in order (blank lines are skipped; case and runs of spaces never matter;
trailing ``. ! ? , ; :`` are ignored, so ``Resign.``, ``draw?`` and ``Help!`` work):

1. **A command phrase**, the whole line: ``resign``; ``draw`` (offer a draw, or accept the one
   offered, as ``service.games.draw("offer")`` does); ``accept`` (accept an offer made to you,
   never make one); ``decline``; ``board`` or ``status``; ``help``; ``wait`` (``wait off`` undoes
   it); ``vacation on`` / ``vacation off``; ``preview <move>``; ``language <code>``
   (``language de``, ``Sprache de``, ``langue fr``...: the language we write to the player in,
   ``service/i18n.py``; the code or name is checked where it is done); and a few natural variants
   listed in ``_COMMAND_PHRASES`` (``I resign``, ``offer a draw``, ``no draw``...). And
   ``note <text>`` / ``note -`` (``read_note``; ``notiz``, ``nota``, ``заметка``...): the
   player's private note on the game (issue 25, 2), which ``reading.take_note`` takes out of
   a reply, with the lines right below it, before anything else is read. The same
   commands in the eight other languages (``phrases.COMMAND_PHRASES``: ``aufgeben``, ``ich
   gebe auf``, ``remis``, ``nulle``, ``tablas``, ``patta``, ``сдаюсь``, ``Vorschau a1-a3``...),
   whole lines too, whatever the player's language; a resignation in any of them is doubted
   as an English one is (``phrases.RESIGN_WORD_RE``, ``DOUBTS``, ``REFUSALS``). None of them
   is any game's notation either.
2. **A command word used otherwise** (``resign now``, ``vacation``, ``e2-e4 draw``, ``Hi, I
   resign``): an ``ERROR`` saying how to write that command. No game's notation contains these
   words, so such a line is never a move; refusing it is safer than guessing (a resignation
   cannot be taken back), and the player learns the right form.
3. **A greeting or thanks** with at most three words after it and no digit (``Hi Bob,``,
   ``Thanks!``, ``Cheers``, ``Dear opponent``): a ``GREETING``, not acted on. No game's
   notation starts with these words, so no move is lost; the extractor already drops closings
   at the end of a reply, this catches the ones above the move.
4. **Anything else is a move line.** All move lines of a reply are joined, in order, into one
   ``MOVE`` command (at the place of the first one), with a space between lines: C-1 makes
   newlines and spaces equal separators of orders. This is deliberate for alternating games
   too: an Anti-Grid capture chain (ANT-17, ``g1-g5 a9-d9``) and an Elemento placement with its
   removal choices (ELE-18, ``W@d1 1:opp d:keep``) are one move that a player may well write
   over several lines, just as sealed orders (Elasta, Nelaxtam) are. Where one move per reply
   is the rule (Epaminondas), the engine rejects the joined text, quoting all of it; the
   command's ``note`` then says how many lines were read together, so the error reply can add
   "one move per reply". Nothing is ever played from half of what was sent.

A line that repeats an earlier one is ``IGNORED`` (a mail client's duplicate, or a command
given twice). Only the first ``MAX_LINES`` non-blank lines are read: the rest become one
``IGNORED`` command naming how many were skipped, and the move lines, if any, become an
``ERROR`` instead of a ``MOVE`` (the skipped lines may be part of the orders). A line longer
than ``MAX_LINE_CHARS`` is an ``ERROR``: no move or command is that long, and the engine is
not asked to quote it back.

>>> [(c.kind.value, c.argument) for c in read_commands("Hi Bob,\\ne2-e4\\nDraw?")]
[('greeting', ''), ('move', 'e2-e4'), ('draw', '')]
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from service.i18n import N_
from service.mail.phrases import (
    COMMAND_PHRASES,
    DOUBT_RE,
    LANGUAGE_WORDS,
    REFUSAL_RE,
    RESIGN_WORD_RE,
)

__all__ = [
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "Command",
    "Kind",
    "command_hint",
    "local_word",
    "read_command",
    "read_command_in_prose",
    "read_commands",
    "read_note",
    "resignation_doubt",
    "take_conditionals",
]

MAX_LINES = 20
MAX_LINE_CHARS = 200


class Kind(StrEnum):
    """What a line asks for."""

    MOVE = "move"
    """Play the move, or send (replace) the sealed orders, in ``argument``."""
    PREVIEW = "preview"
    """Show the board after the move in ``argument``; store nothing."""
    RESIGN = "resign"
    DRAW = "draw"
    """Offer a draw, or accept the one on the table."""
    ACCEPT = "accept"
    """Accept the offer made to the player (a draw offer); never makes an offer itself."""
    DECLINE = "decline"
    TAKEBACK = "takeback"
    """``argument`` ``offer``: take my last move back; ``accept`` / ``decline`` the takeback
    my opponent offered (issue 25)."""
    UNDO = "undo"
    """Cancel the move I mailed that is held by my send delay (issue 25)."""
    DELAY = "delay"
    """Hold my mailed moves ``argument`` minutes (``0``: off) before they count (issue 25)."""
    BOARD = "board"
    HELP = "help"
    WAIT = "wait"
    """``argument`` ``on``: do not resolve my sealed turn before the deadline; ``off`` undoes."""
    VACATION = "vacation"
    """``argument`` ``on`` or ``off``."""
    NOTE = "note"
    """Replace the player's private note on the game with ``argument`` (issue 25, 2);
    an empty ``argument`` (``note -``) clears it. ``line`` holds the command word only, so
    no report, log or stored result ever quotes the note."""
    LANGUAGE = "language"
    """Write to me in the language ``argument`` names (a code or a name, as typed)."""
    CONFIRM = "confirm"
    """Nothing done: ``argument`` names the command (``resign``) the reply speaks of with
    doubt; the answer asks for it to be sent alone, to confirm it (resigning is deliberate)."""
    GREETING = "greeting"
    """A greeting or thanks: nothing to do, nothing to report."""
    CONDITIONAL = "conditional"
    """Conditional moves: ``argument`` holds the ``if ... then ...`` lines (see
    :func:`take_conditionals` and ``service/conditional.py``)."""
    IGNORED = "ignored"
    """Not read: a repeated line, or lines past ``MAX_LINES``; ``note`` says which."""
    ERROR = "error"
    """Could not be read as what it seems to be; ``note`` tells the player how to write it."""


READ_ONLY = frozenset({Kind.HELP, Kind.BOARD, Kind.PREVIEW})
"""What only reads and stores nothing: an unsigned reply of these alone (greetings aside) is
answered at once, with no confirmation (``gateway._Handling._reads_only``)."""


@dataclass(frozen=True)
class Command:
    """One thing a reply asks for, with the text it came from.

    ``line`` is the line as typed (stripped); for a ``MOVE`` read from several lines, those
    lines joined by newlines; cut to ``MAX_LINE_CHARS`` characters for an overlong line.
    """

    kind: Kind
    argument: str = ""
    line: str = ""
    note: str = ""


_COMMAND_PHRASES: tuple[tuple[Kind, str, str], ...] = (
    (Kind.RESIGN, "", "resign|i resign|i resign the game|i resign this game|i hereby resign"),
    (Kind.DRAW, "", "draw|offer draw|offer a draw|i offer a draw|draw offer|draw offered"),
    (
        Kind.DRAW,
        "off",
        "draw off|withdraw draw|withdraw my draw offer|withdraw the draw offer|"
        "take back draw offer|take back my draw offer",
    ),
    (
        Kind.ACCEPT,
        "",
        "accept|i accept|accept draw|accept the draw|accept draw offer|accept the draw offer|"
        "i accept the draw|draw accepted",
    ),
    (
        Kind.DECLINE,
        "",
        "decline|i decline|decline draw|decline the draw|decline draw offer|"
        "decline the draw offer|no draw",
    ),
    (
        Kind.TAKEBACK,
        "offer",
        "takeback|take back|take back my move|take back my last move|offer takeback|"
        "i offer a takeback",
    ),
    (Kind.TAKEBACK, "accept", "takeback accept|accept takeback|accept the takeback"),
    (Kind.TAKEBACK, "decline", "takeback decline|decline takeback|decline the takeback"),
    (Kind.UNDO, "", "undo|undo my move|undo move"),
    (Kind.BOARD, "", "board|status|show board|show the board"),
    (Kind.HELP, "", "help"),
    (Kind.WAIT, "on", "wait|wait on"),
    (Kind.WAIT, "off", "wait off"),
    (Kind.VACATION, "on", "vacation on"),
    (Kind.VACATION, "off", "vacation off"),
)
_MEANS: Mapping[str, tuple[Kind, str]] = {
    "resign": (Kind.RESIGN, ""),
    "draw": (Kind.DRAW, ""),
    "draw off": (Kind.DRAW, "off"),
    "accept": (Kind.ACCEPT, ""),
    "decline": (Kind.DECLINE, ""),
    "takeback": (Kind.TAKEBACK, "offer"),
    "takeback accept": (Kind.TAKEBACK, "accept"),
    "takeback decline": (Kind.TAKEBACK, "decline"),
    "undo": (Kind.UNDO, ""),
    "board": (Kind.BOARD, ""),
    "help": (Kind.HELP, ""),
    "wait": (Kind.WAIT, "on"),
    "wait off": (Kind.WAIT, "off"),
    "vacation on": (Kind.VACATION, "on"),
    "vacation off": (Kind.VACATION, "off"),
}
"""What each English command of ``phrases.COMMAND_PHRASES`` (the other languages') does."""


def _every_phrase() -> dict[str, tuple[Kind, str]]:
    found = {
        phrase: (kind, argument)
        for kind, argument, phrases in _COMMAND_PHRASES
        for phrase in phrases.split("|")
    }
    for language, table in COMMAND_PHRASES.items():
        for english, phrases in table.items():
            if english in ("preview", "note"):
                continue
            for phrase in phrases:
                meant = _MEANS[english]
                if found.setdefault(phrase, meant) != meant:  # one phrase, one meaning
                    raise ValueError(f"{language} {phrase!r} means two commands")
    return found


_PHRASES: Mapping[str, tuple[Kind, str]] = _every_phrase()
"""Whole lines (lowercase, single spaces, no trailing punctuation) that are a command, in
English and in the other eight languages (``phrases.COMMAND_PHRASES``: ``aufgeben``,
``nulle``, ``tablas``, ``сдаюсь``...)."""
_ACTING = ("resign", "draw", "draw off", "accept", "decline")
_COMMAND_WORDS = frozenset(
    {"resign", "draw", "accept", "decline", "board", "status", "help", "wait", "vacation"}
    | {"takeback", "undo"}
    | {"preview"}
    | {
        phrase
        for table in COMMAND_PHRASES.values()
        for english in _ACTING
        for phrase in table[english]
        if " " not in phrase
    }
)
"""Command words a clause of prose beside a command may not hold (``read_command_in_prose``:
"Remis? Nein, ich gebe auf" is not guessed from): the English ones, and the single words
that resign, offer or answer a draw in the other languages (not their nouns for the board,
"Stand", "position", common in prose)."""


def local_word(english: str, locale: str) -> str:
    """How ``locale`` writes the English command ``english`` (``resign``, ``draw off``,
    ``preview``...): the first phrase of ``phrases.COMMAND_PHRASES``; "" for English, or a
    language or command with none."""
    phrases = COMMAND_PHRASES.get(locale, {}).get(english, ())
    return phrases[0] if phrases else ""


_HOW_TO: Mapping[str, str] = {
    "resign": N_("to resign, write 'resign' alone on a line"),
    "draw": N_("to offer or accept a draw, write 'draw' alone on a line"),
    "accept": N_("to accept a draw offer, write 'accept' alone on a line"),
    "decline": N_("to decline a draw offer, write 'decline' alone on a line"),
    "takeback": N_(
        "to offer to take back your last move, write 'takeback' alone on a line; to answer "
        "an offer, 'takeback accept' or 'takeback decline'"
    ),
    "undo": N_("to cancel a move held by your send delay, write 'undo' alone on a line"),
    "board": N_("to get the board, write 'board' alone on a line"),
    "status": N_("to get the board, write 'status' alone on a line"),
    "help": N_("to get the list of commands, write 'help' alone on a line"),
    "wait": N_("write 'wait' (or 'wait off') alone on a line"),
    "vacation": N_("write 'vacation on' or 'vacation off' alone on a line"),
    "preview": N_("write 'preview' and then your move, e.g. 'preview a1-a3'"),
}
"""The ``ERROR`` note for a line that uses a command word otherwise: how to write it."""

_LANGUAGE_WORDS = frozenset(word for words in LANGUAGE_WORDS.values() for word in words)
_LANGUAGE_HOW_TO = N_(
    "write 'language' and a language code alone on a line, e.g. 'language de' "
    "(en, de, fr, es, it, nl, pt, pl, ru)"
)
"""Only a line that is the bare word gets this note: "language" is common in prose ("sorry
about my language"), and a sentence using it must not stop the move or command beside it."""

_TRAILING_PUNCTUATION = ".!?,;:"
_WORD_RE = re.compile(r"[^\W\d_]+")
_GREETING_RE = re.compile(
    r"(?:hi|hello|hey|hiya|dear|good (?:morning|afternoon|evening|day)|thanks|thank you|"
    r"many thanks|thx|cheers|regards|best regards|kind regards|best wishes|bye)"
    r"(?P<rest>(?:[ ,]+[^\W\d_][^\s,\d]*){0,3})"
)
_PREVIEW_WORDS = sorted(
    {"preview", *(word for table in COMMAND_PHRASES.values() for word in table["preview"])},
    key=len,
    reverse=True,
)
_NOTE_WORDS = sorted(
    {"note", *(word for table in COMMAND_PHRASES.values() for word in table["note"])},
    key=len,
    reverse=True,
)
_NOTE_RE = re.compile(
    rf"(?P<word>{'|'.join(map(re.escape, _NOTE_WORDS))})(?!\w)(?!\s+bene\b)\s*:?\s*(?P<text>.*)",
    re.I | re.S,
)
"""``note <text>``, ``Notiz: <text>``, ``заметка <text>``; ``note -`` clears (issue 25, 2).
"Nota bene, ..." is a remark, not a note: its line is read as any other."""
_PREVIEW_RE = re.compile(
    rf"(?:{'|'.join(map(re.escape, _PREVIEW_WORDS))})(?!\w)\s*:?\s*(?P<move>.*)", re.I | re.S
)
"""``preview a1-a3``, ``Vorschau: a1-a3``, ``aperçu a1-a3``, ``предпросмотр a1-a3``."""
_LANGUAGE_RE = re.compile(
    rf"(?:{'|'.join(sorted({w for ws in LANGUAGE_WORDS.values() for w in ws}))})"
    r"\s*[:=]?\s*(?P<code>[^\W\d_][\w-]{1,19})",
    re.I,
)
"""``language de``, ``Sprache: Deutsch``, ``язык ru``: one word after the command's word."""
DELAY_WORDS = (
    "delay", "send delay", "verzögerung", "délai", "retraso", "ritardo", "vertraging",
    "atraso", "opóźnienie", "задержка",
)  # fmt: skip
_DELAY_RE = re.compile(
    rf"(?:{'|'.join(DELAY_WORDS)})\s*[:=]?\s*(?P<minutes>\d{{1,4}}|off|0)(?:\s*(?:min|minutes|minuten|minutos|minuti|minuten|minut|минут))?",
    re.I,
)
"""``delay 5``, ``delay off``, ``Verzögerung 10``, ``задержка 5``: the send delay in minutes."""


def read_commands(text: str) -> list[Command]:
    """The commands in a typed reply, in the order given (see the module docstring)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    commands: list[Command] = []
    moves: list[str] = []
    move_index = 0
    seen: set[str] = set()
    for line in lines[:MAX_LINES]:
        key = _normal(line)
        if key in seen:
            commands.append(Command(Kind.IGNORED, "", _cut(line), "repeats an earlier line"))
            continue
        seen.add(key)
        command = _read_line(line)
        if command.kind is Kind.MOVE:
            if not moves:
                move_index = len(commands)
            moves.append(line)
        else:
            commands.append(command)
    skipped = lines[MAX_LINES:]
    if moves:
        commands.insert(move_index, _joined_move(moves, cut_short=bool(skipped)))
    if skipped:
        note = f"not read: a reply is read up to its first {MAX_LINES} lines"
        if len(skipped) > 1:
            note += f" ({len(skipped)} lines from this one on)"
        commands.append(Command(Kind.IGNORED, "", _cut(skipped[0]), note))
    return commands


def read_note(line: str) -> Command | None:
    """``note <text>`` (in any of the nine languages' words) as a ``NOTE`` command, or None.

    The text is kept as typed (only stripped); ``note -`` clears the note, and the word
    alone is no command. The command's ``line`` is its word alone: the note is quoted
    nowhere."""
    found = _NOTE_RE.fullmatch(line.strip())
    text = found["text"].strip() if found else ""
    if found is None or not text:
        return None
    return Command(Kind.NOTE, "" if text in ("-", "–", "—") else text, found["word"])


def read_command(line: str) -> Command | None:
    """The command a whole line is (a phrase or ``preview <move>``), or None: strict, never
    guessed from a sentence (see ``reading.py``, which reads replies with it)."""
    normal = _normal(line)
    if normal in _PHRASES:
        kind, argument = _PHRASES[normal]
        return Command(kind, argument, line.strip())
    preview = _PREVIEW_RE.fullmatch(line.strip())
    if preview and preview["move"].strip():
        return Command(Kind.PREVIEW, preview["move"].strip(), line.strip())
    return _delay(line.strip()) or _language(line.strip())


def _delay(line: str) -> Command | None:
    found = _DELAY_RE.fullmatch(_normal(line))
    if not found:
        return None
    minutes = "0" if found["minutes"].lower() == "off" else str(int(found["minutes"]))
    return Command(Kind.DELAY, minutes, line)


_CLAUSE_RE = re.compile(r"[^.!?;,]+[.!?;,]*")
MAX_PROSE_CHARS = 160
MAX_CLAUSE_WORDS = 8


def read_command_in_prose(line: str) -> Command | None:
    """The command said in one clause of a short line of prose ("I resign. Good game!",
    "Hi Bob, I offer a draw. Well played so far."), or None.

    The line is split at sentence marks and commas. Exactly one clause must be a command
    phrase (``read_command``'s), every other one short (at most ``MAX_CLAUSE_WORDS`` words),
    with no digit and no command word: a greeting, a closing, a remark. Anything else is
    not guessed from. A resignation said with doubt is never one: see
    :func:`resignation_doubt`."""
    if len(line) > MAX_PROSE_CHARS or any(char.isdigit() for char in line):
        return None
    clauses = [clause.strip() for clause in _CLAUSE_RE.findall(line) if clause.strip(" .!?;,")]
    if len(clauses) < 2:
        return None
    found = [clause for clause in clauses if _normal(clause) in _PHRASES]
    if len(found) != 1:
        return None
    for clause in clauses:
        if clause is found[0]:
            continue
        words = _WORD_RE.findall(clause.lower())
        if len(words) > MAX_CLAUSE_WORDS or any(word in _COMMAND_WORDS for word in words):
            return None
    kind, argument = _PHRASES[_normal(found[0])]
    return Command(kind, argument, line.strip())


def resignation_doubt(line: str) -> str:
    """Why a line that speaks of resigning is no deliberate resignation: "doubt" when it asks
    ("resign?", "should I resign?") or hedges ("I might resign", "I resign. Just kidding"),
    "refused" when it says no ("not resigning", "I won't resign"), else "" (a resignation,
    or a sentence that merely uses the word, which gets a hint on how to resign)."""
    if not RESIGN_WORD_RE.search(line):
        return ""
    clause = next((c for c in _CLAUSE_RE.findall(line) if RESIGN_WORD_RE.search(c)), line)
    if REFUSAL_RE.search(clause):
        return "refused"
    if DOUBT_RE.search(clause) or DOUBT_RE.search(line.replace("?", "")):
        return "doubt"
    return ""


def command_hint(line: str) -> str:
    """How to write the command whose word a sentence uses ("" if it uses none)."""
    words = _WORD_RE.findall(_normal(line))
    return next((_HOW_TO[word] for word in words if word in _HOW_TO), "")


def _normal(line: str) -> str:
    """Lowercase, single spaces, no trailing punctuation: the form commands are matched in."""
    return " ".join(line.lower().split()).rstrip(_TRAILING_PUNCTUATION + " ")


def _read_line(line: str) -> Command:
    if len(line) > MAX_LINE_CHARS:
        note = f"a line of {len(line)} characters is too long to be a move or a command"
        return Command(Kind.ERROR, "", _cut(line), note)
    normal = _normal(line)
    if normal in _PHRASES:
        kind, argument = _PHRASES[normal]
        return Command(kind, argument, line)
    preview = _PREVIEW_RE.fullmatch(line)
    if preview and preview["move"].strip():
        return Command(Kind.PREVIEW, preview["move"].strip(), line)
    language = _delay(line) or _language(line)
    if language is not None:
        return language
    if normal in _LANGUAGE_WORDS:
        return Command(Kind.ERROR, "", line, _LANGUAGE_HOW_TO)
    words = _WORD_RE.findall(normal)
    command_word = next((word for word in words if word in _HOW_TO), None)
    if command_word is not None:
        return Command(Kind.ERROR, "", line, _HOW_TO[command_word])
    if _GREETING_RE.fullmatch(normal) and not any(char.isdigit() for char in normal):
        return Command(Kind.GREETING, "", line)
    return Command(Kind.MOVE, line, line)


def _language(line: str) -> Command | None:
    found = _LANGUAGE_RE.fullmatch(_normal(line))
    return Command(Kind.LANGUAGE, found["code"], line) if found else None


def _joined_move(lines: list[str], *, cut_short: bool) -> Command:
    """One MOVE from every move line; an ERROR when lines past the cap may belong to it."""
    text, line = " ".join(lines), "\n".join(lines)
    if cut_short:
        note = (
            f"not played: the reply has more than {MAX_LINES} lines, so this may be only part "
            f"of your move or orders; send them again on fewer lines"
        )
        return Command(Kind.ERROR, "", line, note)
    note = f"{len(lines)} lines read together as one move or set of orders"
    return Command(Kind.MOVE, text, line, note if len(lines) > 1 else "")


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


_CONDITIONAL_RE = re.compile(r"\s*if\b.*\bthen\b", re.I | re.S)


def take_conditionals(text: str) -> tuple[str, Command | None]:
    """A separate step before :func:`read_commands`: the ``if ... then ...`` lines of a reply.

    Returns the text without them (for :func:`read_commands`) and one ``CONDITIONAL`` command
    holding them all in order, or None when there is none. No game's notation starts with
    ``if`` nor contains ``then``, so such a line is never a move. At most ``MAX_LINES`` are
    taken, like every other kind of line.

    >>> rest, found = take_conditionals("a1-a3\\nif g11-g10 then c4-c6\\nthanks")
    >>> rest, found.argument
    ('a1-a3\\nthanks', 'if g11-g10 then c4-c6')
    """
    kept: list[str] = []
    taken: list[str] = []
    for line in text.splitlines():
        (taken if _CONDITIONAL_RE.match(line) else kept).append(line)
    if not taken:
        return text, None
    lines = [line.strip() for line in taken[:MAX_LINES]]
    joined = "\n".join(lines)
    return "\n".join(kept), Command(Kind.CONDITIONAL, joined, joined)
