"""Reading a typed reply as a person would: the game decides what is a move.

``read_reply(text, judge)`` sorts the lines ``extract.py`` found into commands, one move (or
set of sealed orders) and ignored prose, and says why for each. It touches no database: the
``judge`` it is given (``service.games.action_reader``) reads a text as the player's action in
the current position and returns its canonical text, or raises ``ServiceError`` saying why
it is none.

How a reply is read:

0. **One typography** (``typography.py``), once, before any game reads a word: full-width
   forms, every dash-like character, curly quotes, odd spaces and invisible or directional
   marks become plain text, so every game reads ``a1–a3`` as ``a1-a3``.
1. **Line kinds**, tried in order by ``LINE_READERS`` (a new kind of line is one more reader):
   a snip mark (``[...]``, ``[snip]``) is dropped; our own example line is ignored; a line
   repeating an earlier one is ignored; a line of a company footer (a registration or tax
   number, a phone, a postal address, a disclaimer: ``phrases.is_footer``) is ignored, so a
   registration number is never Elasta orders; a command alone on its line
   (``commands.read_command``) or said in one clause of a short line of prose ("I resign.
   Good game!", ``read_command_in_prose``) is a command; every other line is a *text line*.
   Resigning stays deliberate: a resignation said with doubt ("should I resign?", "I might
   resign", "I resign. Just kidding") is a CONFIRM (nothing done; the answer asks for
   ``resign`` alone), and one said with "not" is no command. A sentence that merely uses a
   command word ("nice board!") is prose, ignored, with a hint on how to write the command.
2. **Candidates.** From the text lines the reader proposes candidate texts: each line (after
   a label: ``my move:``, ``Mein Zug:``, or in any language a few words and a colon); in a
   line, its notation-shaped tokens (``d1-d4``, ``W@d1``, ``1:ne``, ``a0``, ``01234567``)
   joined, each maximal run of them and each one alone; each run of consecutive *notation
   lines* (lines made only of such tokens) joined, for orders written over several lines
   (Anti-Grid chains, Elemento removal choices, Elasta and Nelaxtam orders); and every
   notation-shaped token of the reply joined.
3. **What the reply takes back** in plain words is read and never played: notation right
   after "not" ("not d1-d4, I mean d1-d5"), or followed within a few words by "sorry", "I
   mean", "typo"... and then other notation the game reads as a move ("d1-d4... sorry,
   d1-d5", "d1-d4 (typo, I meant d1-d5)"), in the languages of ``phrases.CORRECTIONS``;
   "or" between two moves takes neither back.
4. **The game decides.** Each candidate is put to the judge. A legal candidate inside a larger
   legal one (the same tokens and more) is a part of it, not a move of its own. Then:
   exactly one distinct action, every notation line part of it, and **every line it is read
   from read whole** (each token of such a line that looks like notation, or has a digit, is
   part of the move or taken back): play it. A token of such a line that is not
   ("我的命令→1:ne 2:xn", "d1-d4 at 10:30"): play nothing, naming that token, as half of
   what was meant must never be played. Several distinct actions: play nothing and ask
   which. A notation line left out of the one action (a chain whose second step is wrong, a
   typo under the move): play nothing, say why. No legal candidate but a notation line, or
   (when no command was given) a notation-shaped token in a sentence: the engine's error,
   quoting it, and "did you mean l1-l4?" when exactly one legal action fits what was typed
   (its squares and numbers in order: ``l1 to l4``, ``0-1-4-7-2-6-5-3``). Everything else
   is prose: kept in the answer's "Ignored" list, never an error.

The judge is asked at most ``MAX_CANDIDATES`` times and for at most ``READ_SECONDS``; a
reply that needs more is not guessed from: nothing is played and the player is told why.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from service import i18n
from service.errors import ServiceError
from service.i18n import N_
from service.mail import phrases
from service.mail.commands import (
    MAX_LINE_CHARS,
    Command,
    Kind,
    command_hint,
    read_command,
    read_command_in_prose,
    read_note,
    resignation_doubt,
)
from service.mail.typography import normalised
from service.mail.words import POSITION_LINE_LEADS

__all__ = [
    "LINE_READERS",
    "Ignored",
    "Judge",
    "Line",
    "Reading",
    "ignored_line",
    "quoted",
    "read_reply",
]

MAX_CANDIDATES = 400
READ_SECONDS = 5.0

Judge = Callable[[str], str]
"""Canonical text of the player's action in ``text``; raises ServiceError if it is none."""
Legal = Callable[[], Sequence[str]]
"""The canonical texts of the player's legal actions now (empty when too many to list)."""

_STRIP = "\"'“”‘’«»()[]{}.,;!?"
_SHAPED_RE = re.compile(r"(?=\S*\d)[\w@:/\-–—]{1,24}|\w{1,2}:[^\W\d_]{2,6}")
_SNIP_RE = re.compile(
    r"\s*[\[<({]\s*(?:\.{2,}|…|-+\s*)?(?:snip(?:ped)?|schnipp(?:-schnapp)?|gekürzt|coupé|"
    r"coupe|recorte|cortado|taglio|tagliato|knip|geknipt|ciach|wycięte|вырезано|cut)?"
    r"\s*(?:\.{2,}|…|-+)?\s*[\])>}]\s*|\s*(?:\.{3,}|…)\s*",
    re.I,
)


@dataclass(frozen=True)
class Ignored:
    """A line not acted on, and why (for the answer)."""

    line: str
    why: str
    """In English (``ignored_line`` gives it in the reader's language)."""
    hint: str = ""
    """How to write the command the line's words name (``NOT_ALONE``), when it names one."""


@dataclass(frozen=True)
class Reading:
    """What a reply asks for, in the order typed, and what it says besides."""

    commands: tuple[Command, ...]
    ignored: tuple[Ignored, ...]


@dataclass(frozen=True)
class Line:
    """One non-blank typed line and what a reader made of it."""

    index: int
    text: str
    kind: str
    """"command", "text", "ignored" or "dropped"; a reader of a new kind adds its own."""
    command: Command | None = None
    why: str = ""

    @property
    def body(self) -> str:
        """The text the candidates come from: the line without a label ("my move:")."""
        return phrases.without_label(self.text)


LineReader = Callable[[int, str, set[str]], Line | None]


def _snip(index: int, text: str, seen: set[str]) -> Line | None:
    return Line(index, text, "dropped") if _SNIP_RE.fullmatch(text) else None


def _repeat(index: int, text: str, seen: set[str]) -> Line | None:
    key = " ".join(text.lower().split()).rstrip(".!?,;: ")
    if key in seen:
        return Line(index, text, "ignored", why=N_("repeats an earlier line"))
    seen.add(key)
    return None


_OUR_EXAMPLES_RE = re.compile(r"(?:valid (?:now|here), )?for example:", re.I)
_OUR_EXAMPLE_LEADS = ("Valid now, for example:", "For example:")


@functools.cache
def _our_examples_translated() -> re.Pattern[str]:
    """Our example lines' leads as each language writes them ("Jetzt gültig, zum Beispiel:"),
    compiled once per process from the catalogs (``service.i18n``)."""
    leads = {
        i18n.translations(code).ugettext(lead)
        for code in i18n.LANGUAGES
        for lead in _OUR_EXAMPLE_LEADS
    }
    return re.compile("|".join(map(re.escape, sorted(leads, key=len, reverse=True))), re.I)


@functools.cache
def _our_position_lines() -> re.Pattern[str]:
    """The leads of our position-in-words lines ("Destroyed: ", "O: troops ", "Zerstört: ")
    in every language: each sentence up to its first literal part with a word in it."""
    leads = set()
    for code in i18n.LANGUAGES:
        catalog = i18n.translations(code)
        for singular, plural in POSITION_LINE_LEADS:
            if plural:
                texts = {catalog.ungettext(singular, plural, n) for n in (1, 2, 5, 21)}
            else:
                texts = {catalog.ugettext(singular)}
            leads |= {lead for text in texts if (lead := _lead_pattern(normalised(text)))}
    return re.compile("|".join(sorted(leads, key=len, reverse=True)), re.I)


def _lead_pattern(template: str) -> str | None:
    """``template``'s start as a pattern, through its first literal part that holds a word
    (``%(side)s: troops `` -> ``.+?:\\ troops\\ ``); None if no part holds one."""
    pattern = ""
    for i, part in enumerate(re.split(r"%\(\w+\)s", template)):
        pattern += (".+?" if i else "") + re.escape(part)
        if re.search(r"[^\W\d_]{4,}", part):
            return pattern
    return None


def _ours(index: int, text: str, seen: set[str]) -> Line | None:
    """Our own example line or a line of our position in words, in any of our languages,
    should a client's quote have lost its marks: never a move."""
    if _OUR_EXAMPLES_RE.match(text) or _our_examples_translated().match(text):
        return Line(index, text, "ignored", why=N_("the example moves of our mail"))
    if _our_position_lines().match(text.strip()):
        return Line(index, text, "ignored", why=N_("the position in words of our mail"))
    return None


def _footer(index: int, text: str, seen: set[str]) -> Line | None:
    """A line of a company footer (a registration or tax number, a phone, an address, a
    disclaimer): never orders, though it may hold eight digits an Elasta player could send."""
    if phrases.is_footer(text) and not _all_shaped(text):
        return Line(index, text, "ignored", why=FOOTER)
    return None


def _command(index: int, text: str, seen: set[str]) -> Line | None:
    """A command alone on its line, or said in a short line of prose ("I resign. Good
    game!"). A resignation said with doubt is a CONFIRM: nothing is done, the answer asks
    for it alone; one said with "not" is no command at all (a text line)."""
    doubt = resignation_doubt(text)
    if doubt == "doubt" and not any(_shaped(token) for token in _tokens(text)):
        note = N_("it sounds unsure, so you have not resigned")
        return Line(index, text, "command", Command(Kind.CONFIRM, "resign", text, note))
    if doubt:
        return None
    command = read_command(text) or read_command_in_prose(text)
    return Line(index, text, "command", command) if command else None


LINE_READERS: list[LineReader] = [_snip, _ours, _repeat, _footer, _command]
"""Tried in order on each line; the first answer wins, and a line no reader claims is a text
line (a move candidate or prose). A new kind of line (say, a conditional order) is one more
reader: a ``Line`` with a ``command`` runs that command in its place, in the order typed."""


def read_reply(
    text: str,
    judge: Judge,
    signature: Sequence[str] = (),
    legal: Legal | None = None,
    locale: str = i18n.DEFAULT,
) -> Reading:
    """The commands, the move and the ignored lines of a typed reply (module docstring).

    ``signature``: the lines the extractor cut as a signature. They are listed as ignored,
    except a line made only of notation, or one word that is a legal action ("Good luck!"
    above a move made it look like a sign-off): that one is read with the rest, so no move
    is lost to a signature cut.
    ``legal``: the player's legal actions, for "did you mean ...?" when nothing was legal.
    ``locale``: the reader's, for the engine's words in the notes (issue 24).
    """
    # One typography for every game, before any game reads a word (``typography.py``).
    text, signature = normalised(text), [normalised(line) for line in signature]
    text, note = take_note(text)
    kept = [line for line in signature if line.strip() and _a_move_line(line, judge)]
    lines = list(_lines("\n".join([text, *kept])))
    texts = [line for line in lines if line.kind == "text"]
    found = _Candidates(texts, judge, legal, locale=locale)
    acting = any(line.command and line.command.kind is not Kind.CONFIRM for line in lines)
    move, used = found.decide(any_command=acting)
    acting = acting or (move is not None and move.kind is Kind.MOVE)
    commands: list[Command] = []
    ignored: list[Ignored] = []
    for line in lines:
        if line.command is not None and line.command.kind is Kind.CONFIRM and acting:
            # The reply acts otherwise: the doubt is only noted, no confirmation is asked.
            ignored.append(Ignored(line.text, UNSURE))
        elif line.command is not None:
            commands.append(line.command)
        elif move is not None and line.index == used[0]:
            commands.append(move)
        elif line.kind == "ignored":
            ignored.append(Ignored(line.text, line.why))
        elif line.kind == "text" and line.index not in used:
            ignored.append(Ignored(line.text, _why_ignored(line.text), command_hint(line.text)))
    for cut in signature:
        if cut.strip() and cut not in kept:
            why = _why_ignored(cut)
            shown = N_("a signature") if why == PROSE else why
            ignored.append(Ignored(cut.strip(), shown, command_hint(cut) if why != PROSE else ""))
    if note is not None:
        commands.append(note)
    return Reading(tuple(commands), tuple(ignored))


def take_note(text: str) -> tuple[str, Command | None]:
    """The private note a reply sets (issue 25, 2), taken out before anything else is read.

    A line ``note <text>`` (``Notiz``, ``nota``, ``заметка``..., ``commands.read_note``)
    starts the note; the lines right below it, up to a blank line, go on with it. None of
    those lines is ever a move candidate, a command or a quoted "ignored" line: a plan
    written in a note ("then d1-d4") is never played, and the note is quoted nowhere. The
    first note of a reply counts; a second one is read as part of nothing (dropped)."""
    lines = text.splitlines()
    for start, line in enumerate(lines):
        found = read_note(line)
        if found is None:
            continue
        end = start + 1
        while end < len(lines) and lines[end].strip():
            end += 1
        said = "\n".join([found.argument, *(lines[i].strip() for i in range(start + 1, end))])
        rest = "\n".join(lines[:start] + lines[end:])
        cleared = found.argument == "" and end == start + 1
        note = Command(Kind.NOTE, "" if cleared else said.strip(), found.line)
        while (more := take_note(rest))[1] is not None:  # a second note: dropped
            rest = more[0]
        return rest, note
    return text, None


def _lines(text: str) -> Iterator[Line]:
    seen: set[str] = set()
    numbered = (line.strip() for line in text.splitlines())
    for index, line in enumerate(line for line in numbered if line):
        read = next(
            (got for reader in LINE_READERS if (got := reader(index, line, seen)) is not None),
            None,
        )
        yield read or Line(index, line, "text")


PROSE = N_("not a move or command")
FOOTER = N_("a footer (company registration, address, phone or disclaimer)")
UNSURE = N_("sounds unsure about resigning: to resign, reply 'resign' alone on a line")
NOT_RESIGNING = N_("says you are not resigning: nothing was done")
NOT_ALONE = N_("not a command alone on its line: %(hint)s")
_KINDS = {
    "greeting": N_("a greeting"),
    "sign-off": N_("a closing"),
    "label": N_("a label"),
    "name": N_("a name"),
}
SHOWN_IGNORED = 12
SHOWN_CHARS = 60


def _why_ignored(line: str) -> str:
    if resignation_doubt(line) == "refused":
        return NOT_RESIGNING
    if resignation_doubt(line) == "doubt":
        return UNSURE
    hint = command_hint(line)
    if hint:
        return NOT_ALONE % {"hint": hint}
    return _KINDS.get(phrases.kind_of(line), PROSE)


def quoted(text: str) -> str:
    """A text read from a reply, for an answer: 'line', or 'line 1 / line 2'."""
    shown = " / ".join(line.strip() for line in text.splitlines() if line.strip())
    if len(shown) > SHOWN_CHARS:
        shown = shown[: SHOWN_CHARS - 1] + "…"
    return f"'{shown}'"


def _shown_why(ignored: Ignored, locale: str) -> str:
    """Why a line was not acted on, in ``locale``."""
    if ignored.why == NOT_ALONE % {"hint": ignored.hint}:
        return i18n.gettext(locale, NOT_ALONE, hint=i18n.gettext(locale, ignored.hint))
    return i18n.gettext(locale, ignored.why)


def ignored_line(ignored: Sequence[Ignored], locale: str = i18n.DEFAULT) -> str:
    """The answer's line on what was not acted on: "Ignored: 'Thanks!', 'Carol' (a name)",
    in ``locale``."""
    if not ignored:
        return i18n.gettext(locale, N_("Ignored: nothing."))
    parts = [
        quoted(i.line) + ("" if i.why == PROSE else f" ({_shown_why(i, locale)})") for i in ignored
    ]
    more = len(parts) - SHOWN_IGNORED
    if more > 0:
        catalog = i18n.translations(locale)
        tail = catalog.ungettext("and %(num)s more line", "and %(num)s more lines", more)
        parts = [*parts[:SHOWN_IGNORED], tail % {"num": more}]
    return i18n.gettext(locale, N_("Ignored: %(lines)s"), lines=", ".join(parts))


def _tokens(line: str) -> list[str]:
    return [token.strip(_STRIP) for token in line.split()]


def _a_move_line(line: str, judge: Judge) -> bool:
    """Whether a line cut as a signature is notation after all: made only of notation's
    shapes, or one word that is the player's legal action (Nelaxtam's "hold" under "Good
    luck!" looks like a name under a sign-off)."""
    if _all_shaped(line):
        return True
    words = _tokens(phrases.without_label(line))
    if len(words) != 1:
        return False
    try:
        judge(words[0])
    except ServiceError:
        return False
    return True


def _all_shaped(line: str) -> bool:
    return all(_shaped(token) for token in _tokens(phrases.without_label(line)))


def _shaped(token: str) -> bool:
    return bool(token) and bool(_SHAPED_RE.fullmatch(token))


@dataclass(frozen=True)
class _Candidate:
    text: str
    span: frozenset[tuple[int, int]]
    """(line index, token index) of every token the text is made of."""
    lines: tuple[int, ...]


@dataclass
class _Candidates:
    lines: Sequence[Line]
    judge: Judge
    legal: Legal | None = None
    verdicts: dict[str, str | ServiceError] = field(default_factory=dict)
    asked: int = 0
    started: float = field(default_factory=time.monotonic)
    locale: str = i18n.DEFAULT
    """The reader's: the engine's words in a note are in it."""

    def decide(self, *, any_command: bool) -> tuple[Command | None, tuple[int, ...]]:
        """The MOVE (or ERROR) to run and the lines it was read from, or (None, ())."""
        notation = [line for line in self.lines if self._is_notation(line)]
        candidates = list(self._candidates(notation))
        legal: list[tuple[_Candidate, str]] = []
        for candidate in candidates:
            verdict = self._verdict(candidate.text)
            if verdict is None:
                return self._too_long(candidates)
            if isinstance(verdict, str):
                legal.append((candidate, verdict))
        # What the reply itself takes back in plain words ("not d1-d4", "d1-d4... sorry,
        # d1-d5") is read, and never played.
        withdrawn = self._withdrawn()
        kept = [(c, action) for c, action in legal if not c.span <= withdrawn]
        biggest = [(c, action) for c, action in kept if not any(c.span < d.span for d, _ in kept)]
        actions = list(dict.fromkeys(action for _, action in biggest))
        if len(actions) > 1:
            return self._several(biggest)
        if actions:
            covered = {token for c, _ in biggest for token in c.span} | withdrawn
            left_out = [line for line in notation if not self._covered(line, covered)]
            if left_out:
                return self._left_out(left_out, biggest, actions[0])
            sources = tuple(sorted({i for c, _ in biggest for i in c.lines}))
            stray = self._stray(sources, covered)
            if stray is not None:
                return self._unread(stray, sources, actions[0])
            sources = tuple(sorted(set(sources) | {i for i, _ in withdrawn}))
            text = "\n".join(self._text(i) for i in sources)
            # A MOVE's note is what the answer adds to "played ...".
            note = f"you took back {', '.join(self._groups(withdrawn))}" if withdrawn else ""
            return Command(Kind.MOVE, actions[0], text, note), sources
        if legal:
            return self._all_withdrawn(legal, withdrawn)
        return self._none_legal(notation, any_command=any_command)

    # -- candidates -----------------------------------------------------------------------

    def _is_notation(self, line: Line) -> bool:
        tokens = _tokens(line.body)
        return len(line.body) <= MAX_LINE_CHARS and all(_shaped(t) for t in tokens)

    def _candidates(self, notation: Sequence[Line]) -> Iterator[_Candidate]:
        for block in self._blocks(notation):
            if len(block) > 1:
                yield self._joined(block)
        every: list[tuple[Line, int, str]] = []
        for line in self.lines:
            tokens = _tokens(line.body)
            shaped = [(i, t) for i, t in enumerate(tokens) if _shaped(t)]
            every += [(line, i, t) for i, t in shaped]
            if len(line.body) <= MAX_LINE_CHARS:
                span = frozenset((line.index, i) for i in range(len(tokens)))
                yield _Candidate(line.body, span, (line.index,))
            parts = [shaped, *_runs(shaped), *([s] for s in shaped)] if shaped else []
            for part in parts:
                span = frozenset((line.index, i) for i, _ in part)
                yield _Candidate(" ".join(t for _, t in part), span, (line.index,))
        if len({line.index for line, _, _ in every}) > 1:
            span = frozenset((line.index, i) for line, i, _ in every)
            lines = tuple(sorted({line.index for line, _, _ in every}))
            yield _Candidate(" ".join(t for _, _, t in every), span, lines)

    def _blocks(self, notation: Sequence[Line]) -> Iterator[list[Line]]:
        """Runs of notation lines typed one under the other (blank lines aside)."""
        block: list[Line] = []
        for line in notation:
            if block and line.index != block[-1].index + 1:
                yield block
                block = []
            block.append(line)
        if block:
            yield block

    def _joined(self, block: Sequence[Line]) -> _Candidate:
        span = frozenset((line.index, i) for line in block for i in range(len(_tokens(line.body))))
        return _Candidate(
            " ".join(line.body for line in block), span, tuple(line.index for line in block)
        )

    def _covered(self, line: Line, covered: set[tuple[int, int]]) -> bool:
        return all((line.index, i) in covered for i in range(len(_tokens(line.body))))

    def _text(self, index: int) -> str:
        return next(line.text for line in self.lines if line.index == index)

    def _verdict(self, text: str) -> str | ServiceError | None:
        """The judge's answer (cached); None when the budget is spent."""
        if text not in self.verdicts:
            spent = time.monotonic() - self.started > READ_SECONDS
            if self.asked >= MAX_CANDIDATES or spent:
                return None
            self.asked += 1
            try:
                self.verdicts[text] = self.judge(text)
            except ServiceError as error:
                self.verdicts[text] = error
        return self.verdicts[text]

    # -- self-corrections and whole lines ---------------------------------------------------

    def _words(self) -> list[tuple[tuple[int, int], str, str]]:
        """Every token of the text lines in order: (line, token index), as typed, stripped."""
        return [
            ((line.index, i), raw, raw.strip(_STRIP).lower())
            for line in self.lines
            for i, raw in enumerate(line.body.split())
        ]

    def _withdrawn(self) -> frozenset[tuple[int, int]]:
        """The notation the reply takes back in plain words (``phrases.CORRECTIONS`` and
        ``NEGATIONS``): a group of notation tokens right after "not" (no punctuation between),
        or one followed, within a few words, by "sorry", "I mean", "typo"... and then another
        group that the game reads as a move (legal or not). "or" between two groups offers
        both, and takes back neither."""
        words = self._words()
        groups: list[list[int]] = []
        for number, (_, _, token) in enumerate(words):
            if _shaped(token):
                if groups and groups[-1][-1] == number - 1:
                    groups[-1].append(number)
                else:
                    groups.append([number])
        taken: set[tuple[int, int]] = set()
        for place, group in enumerate(groups):
            before = words[max(0, group[0] - 3) : group[0]]
            said = " ".join(token for _, _, token in before)
            bare = not before or not before[-1][1].endswith(tuple(",.;:!?)…"))
            if bare and phrases.NEGATION_RE.search(said):
                taken.update(words[n][0] for n in group)
            if place + 1 < len(groups):
                after = groups[place + 1]
                between = " ".join(token for _, _, token in words[group[-1] + 1 : after[0]])
                if self._corrects(between, [words[n][2] for n in after]):
                    taken.update(words[n][0] for n in group)
        return frozenset(taken)

    def _groups(self, tokens: frozenset[tuple[int, int]]) -> list[str]:
        """The runs of ``tokens`` in the order typed, each quoted: "'d1-d4', 'a1-a3'"."""
        runs: list[list[str]] = []
        last = -2
        for number, (place, _, token) in enumerate(self._words()):
            if place in tokens:
                if number == last + 1:
                    runs[-1].append(token)
                else:
                    runs.append([token])
                last = number
        return [f"'{' '.join(run)}'" for run in runs]

    def _corrects(self, between: str, replacement: Sequence[str]) -> bool:
        if len(between.split()) > _CORRECTION_WORDS or phrases.ALTERNATIVE_RE.search(between):
            return False
        if not phrases.CORRECTION_RE.search(between):
            return False
        verdict = self._verdict(" ".join(replacement))
        return isinstance(verdict, str) or _read_as_move(verdict)

    def _stray(
        self, sources: Sequence[int], covered: set[tuple[int, int]]
    ) -> tuple[Line, str] | None:
        """A line the move is read from is read whole: its first token that looks like
        notation (a digit, or notation's shape) and is no part of the move, if any."""
        for line in self.lines:
            if line.index not in sources:
                continue
            for i, token in enumerate(_tokens(line.body)):
                orders_like = _shaped(token) or any(char.isdigit() for char in token)
                if orders_like and (line.index, i) not in covered:
                    return line, token
        return None

    def _unread(
        self, stray: tuple[Line, str], sources: Sequence[int], action: str
    ) -> tuple[Command, tuple[int, ...]]:
        line, token = stray
        verdict = self.verdicts.get(token)
        why = f" ({verdict.localized(self.locale)})" if isinstance(verdict, ServiceError) else ""
        note = (
            f"we could read {action} in {quoted(line.text)}, but not {token!r}{why}; a line "
            f"of orders is read whole, so nothing was played: send the whole move again"
        )
        shown = "\n".join(self._text(i) for i in sources)
        return Command(Kind.ERROR, "", shown, note), tuple(sources)

    def _all_withdrawn(
        self, legal: Sequence[tuple[_Candidate, str]], withdrawn: frozenset[tuple[int, int]]
    ) -> tuple[Command, tuple[int, ...]]:
        """Every legal move was taken back: say so, and why the one meant instead (if any)
        is not a move."""
        sources = tuple(sorted({i for c, _ in legal for i in c.lines}))
        note = f"your reply takes back {', '.join(self._groups(withdrawn))}"
        words = [(place, token) for place, _, token in self._words() if _shaped(token)]
        meant = " ".join(token for place, token in words if place not in withdrawn)
        verdict = self.verdicts.get(meant) if meant else None
        if isinstance(verdict, ServiceError):
            note += f", and {verdict.localized(self.locale)}, so nothing was played"
        else:
            note += " and gives no other move, so nothing was played"
        note += ": reply again with only the move you mean"
        return Command(Kind.ERROR, "", "\n".join(self._text(i) for i in sources), note), sources

    def _suggestion(self, texts: Sequence[str]) -> str:
        """What an error adds when exactly one legal action fits what was typed (its squares
        and numbers in order, its letters among the words): "; did you mean l1-l4?"."""
        if self.legal is None:
            return ""
        legal = self.legal()
        fits: set[str] = set()
        for text in texts:
            fits |= set(fitting(text, legal))
        return f"; did you mean {fits.pop()}?" if len(fits) == 1 else ""

    # -- answers --------------------------------------------------------------------------

    def _several(
        self, biggest: Sequence[tuple[_Candidate, str]]
    ) -> tuple[Command, tuple[int, ...]]:
        choices = list(dict.fromkeys(f"'{c.text}'" for c, _ in biggest))
        sources = tuple(sorted({i for c, _ in biggest for i in c.lines}))
        note = (
            f"we read {len(choices)} different moves in your reply ({', '.join(choices)}), so "
            f"nothing was played: reply again with only the one you mean"
        )
        return Command(Kind.ERROR, "", "\n".join(self._text(i) for i in sources), note), sources

    def _left_out(
        self, lines: Sequence[Line], biggest: Sequence[tuple[_Candidate, str]], action: str
    ) -> tuple[Command, tuple[int, ...]]:
        first = lines[0].body
        verdict = self.verdicts.get(first)
        why = (
            verdict.localized(self.locale)
            if isinstance(verdict, ServiceError)
            else "it is not a move here"
        )
        note = (
            f"we could read {action} as a move, but not {first!r} ({why}); as it may be part "
            f"of what you meant, nothing was played: send the whole move again"
        )
        read = {line.index for line in lines} | {i for c, _ in biggest for i in c.lines}
        sources = tuple(sorted(read))
        return Command(Kind.ERROR, "", "\n".join(self._text(i) for i in sources), note), sources

    def _none_legal(
        self, notation: Sequence[Line], *, any_command: bool
    ) -> tuple[Command | None, tuple[int, ...]]:
        if notation:
            block = next(iter(self._blocks(notation)))
            tried = self._joined(block) if len(block) > 1 else None
            text = tried.text if tried else block[0].body
            sources = tuple(line.index for line in block)
            shown = "\n".join(line.text for line in block)
        elif any_command:
            return None, ()
        else:
            shaped = [(line, [t for t in _tokens(line.body) if _shaped(t)]) for line in self.lines]
            found = next(((line, tokens) for line, tokens in shaped if tokens), None)
            if found is None:
                return self._only_suggestion()
            sources, shown = (found[0].index,), found[0].text
            # The reading the game understood best: one it read as a move, if any.
            readings = [" ".join(found[1]), found[0].body]
            text = next((t for t in readings if _read_as_move(self.verdicts.get(t))), readings[0])
        verdict = self.verdicts.get(text)
        why = (
            verdict.localized(self.locale)
            if isinstance(verdict, ServiceError)
            else "it is not a move here"
        )
        note = why if len(sources) == 1 else f"{why} ({len(sources)} lines read as one move)"
        note += self._suggestion([text, shown])
        return Command(Kind.ERROR, "", shown, note), sources

    def _only_suggestion(self) -> tuple[Command | None, tuple[int, ...]]:
        """No notation at all, but a line one legal action fits ("l1 > l4"): say which."""
        for line in self.lines:
            suggestion = self._suggestion([line.body])
            if suggestion:
                note = f"{quoted(line.text)} is not written in the game's notation{suggestion}"
                return Command(Kind.ERROR, "", line.text, note), (line.index,)
        return None, ()

    def _too_long(self, candidates: Sequence[_Candidate]) -> tuple[Command, tuple[int, ...]]:
        sources = tuple(sorted({i for c in candidates for i in c.lines}))
        note = (
            f"your reply has too many lines that could be moves to read them all "
            f"({len(sources)}), so nothing was played: send your move alone"
        )
        first = self._text(sources[0]) if sources else ""
        return Command(Kind.ERROR, "", first, note), sources


def _read_as_move(verdict: str | ServiceError | None) -> bool:
    """A refusal of something the game did read as a move (illegal, not unreadable)."""
    return isinstance(verdict, ServiceError) and verdict.code != "cannot_read"


def _runs(shaped: Sequence[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
    """Maximal runs of notation-shaped tokens standing next to each other in a line."""
    run: list[tuple[int, str]] = []
    for index, token in shaped:
        if run and index != run[-1][0] + 1:
            yield run
            run = []
        run.append((index, token))
    if run:
        yield run


_CORRECTION_WORDS = 6
"""At most this many words between a move taken back and the one meant."""
_CAPTURE_SIGN_RE = re.compile(r"(?<=\d)x(?=[a-z])")
_ATOM_RE = re.compile(r"[a-z]\d+|\d+|[^\W\d_]+")
MAX_FITTED = 50_000
"""Past this many legal actions (an Elasta or Nelaxtam turn can have more), none is fitted."""


def _atoms(text: str) -> tuple[str, set[str]]:
    """What a text says, whatever its separators: its squares and numbers in order (as one
    string), and its letter words."""
    atoms = _ATOM_RE.findall(_CAPTURE_SIGN_RE.sub("-", text.lower()))
    numbers = "".join(atom for atom in atoms if any(char.isdigit() for char in atom))
    return numbers, {atom for atom in atoms if atom.isalpha()}


def fitting(text: str, legal: Sequence[str]) -> list[str]:
    """The legal actions ``text`` can only mean: the same squares and numbers in the same
    order ("l1 to l4", "l1>l4" fit l1-l4; "0-1-4-7-2-6-5-3" fits 01472653), and every letter
    word of the action among the text's words or their first letters ("W on d1" fits W@d1,
    not F@d1)."""
    numbers, words = _atoms(text)
    if not numbers or len(legal) > MAX_FITTED:
        return []
    words |= {word[0] for word in words}
    found = []
    for action in legal:
        their_numbers, their_words = _atoms(action)
        if their_numbers == numbers and their_words <= words:
            found.append(action)
    return found
