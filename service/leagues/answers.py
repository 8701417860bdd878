"""Reading a reply to a league invitation: accept, decline, or why neither was read.

A reply answers as a move reply does (``service/mail/commands.py``): the typed text is
normalised (``typography.normalised``: curly quotes, dashes), greeting and closing lines are
set aside, and each remaining line is read in clauses (split at ``. ! ? , ; :`` and dashes).
A line answers when one or more of its clauses is an answer phrase (``ACCEPTS`` or
``DECLINES``, the whole clause) and every other clause is a short remark (at most
``MAX_REMARK_WORDS`` words, no digit, no command word of a game, no doubt: "maybe", "if",
"not sure"...). So "Yes, count me in!", "Yes please", "I'm in. Looking forward to it" and
"No thanks, busy this spring" answer; "maybe next time", "yes if it starts in May", "count me
in?" and "take 1" do not. The reply must give exactly one answer (both accept and decline is
no answer); a line of remarks alone ("Looking forward to it.") is read past. What could not
be read is quoted back with the phrases that are valid.

>>> read_answer("Hi Tess,\\n\\nYes, count me in!\\n\\nCheers, Bob")
(True, '')
>>> read_answer("No thanks")
(False, '')
>>> read_answer("maybe next time")[1].split(":")[0]
"we could not read 'maybe next time' as an answer ('maybe' leaves the answer open)"
>>> read_answer("count me in?")[0] is None
True
"""

from __future__ import annotations

import re

from service import i18n
from service.i18n import N_
from service.mail.commands import Kind, read_commands
from service.mail.typography import normalised

__all__ = ["ACCEPTS", "DECLINES", "HOW_TO_ANSWER", "read_answer"]

ACCEPTS = (
    "accept", "i accept", "accepted", "accept the invitation", "i accept the invitation",
    "yes", "yes please", "yes i'm in", "yes i am in", "yep", "yeah", "yup", "sure", "ok",
    "okay", "join", "i join", "i'll join", "i will join", "i'd like to join",
    "i would like to join", "count me in", "i'm in", "im in", "i am in", "sign me up",
    "with pleasure", "gladly", "absolutely", "definitely", "i'd love to", "i would love to",
    "love to", "happy to", "happy to join", "of course", "deal",
)  # fmt: skip
"""Whole clauses (lowercase, single spaces, no end punctuation) that accept."""
DECLINES = (
    "decline", "i decline", "declined", "decline the invitation", "i decline the invitation",
    "no", "no thanks", "no thank you", "nope", "no sorry", "sorry no", "not this time",
    "not for me", "count me out", "i'm out", "i am out", "i'll pass", "i will pass", "pass",
    "i can't", "i cannot", "i can't make it", "i cannot make it", "i can't join",
    "i cannot join", "i won't join", "i will not join",
)  # fmt: skip
"""Whole clauses that decline."""
LOCAL_ACCEPTS = (
    "annehmen", "ich nehme an", "akzeptieren", "ich akzeptiere", "ja", "ja gerne", "ich bin dabei",
    "accepter", "j'accepte", "oui", "oui merci", "avec plaisir",
    "acepto", "aceptar", "sí", "si", "sì", "me apunto",
    "accetto", "accettare", "ci sono",
    "accepteren", "ik accepteer", "aanvaarden", "ik doe mee",
    "aceito", "aceitar", "sim", "estou dentro",
    "akceptuję", "akceptuje", "przyjmuję", "przyjmuje", "tak", "wchodzę",
    "принимаю", "принять", "согласен", "согласна", "да", "участвую",
)  # fmt: skip
"""Clauses that accept in the other languages the mail reader knows (``mail/phrases.py``:
their ``accept`` command words, and a plain yes)."""
LOCAL_DECLINES = (
    "ablehnen", "ich lehne ab", "nein", "nein danke",
    "refuser", "je refuse", "non", "non merci",
    "rechazo", "rechazar", "no gracias",
    "rifiuto", "rifiutare", "no grazie",
    "weigeren", "ik weiger", "afwijzen", "nee", "nee dank je",
    "recuso", "recusar", "não", "não obrigado", "não obrigada",
    "odrzucam", "nie", "nie dziękuję",
    "отклоняю", "отклонить", "нет", "нет спасибо",
)  # fmt: skip
"""Clauses that decline in the other languages."""
MAX_REMARK_WORDS = 8
COMMAND_WORDS = ("resign", "draw", "board", "status", "help", "wait", "vacation", "preview")
"""Words of a game's commands (``commands.py``): a line using one is no remark."""
HOW_TO_ANSWER = N_(
    "to answer the invitation, reply with accept (or yes, or join, or count me in) or with "
    "decline (or no, or no thanks), above the marker line; a greeting or a short remark may "
    "stand beside it, as in 'Yes, count me in!'"
)
"""In English; :func:`read_answer` says it in the reader's language."""

_ANSWERS = {
    **dict.fromkeys(ACCEPTS + LOCAL_ACCEPTS, True),
    **dict.fromkeys(DECLINES + LOCAL_DECLINES, False),
}
_CLAUSE_RE = re.compile(r"[^.!?,;:]+[.!?,;:]*")
_DASH_RE = re.compile(r"\s+-+\s+")
_WORD_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
DOUBTS = (
    "maybe", "perhaps", "might", "if", "unless", "whether", "not sure", "unsure", "probably",
    "kidding", "joking", "jk", "but", "depends", "except", "think", "thinking", "consider",
    "considering", "wonder", "wondering", "not yet", "let me", "later",
)  # fmt: skip
"""Words in a remark that leave the answer open ("yes, but only if it starts in May")."""
_DOUBT_RE = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, DOUBTS)) + r")(?!\w)", re.I)


def read_answer(text: str, locale: str = i18n.DEFAULT) -> tuple[bool | None, str]:
    """The one answer a reply gives (True: accept, False: decline), or None and why none,
    in ``locale`` (the reader's)."""

    def _(message: str, **values: str) -> str:
        return i18n.gettext(locale, message, **values)

    how = _(HOW_TO_ANSWER)
    answers: list[bool] = []
    read: list[str] = []
    for command in read_commands(normalised(text)):
        if command.kind in (Kind.GREETING, Kind.IGNORED):
            continue
        for line in command.line.splitlines():
            found, problem = _read_line(line, locale)
            if problem:
                return None, _(
                    "we could not read %(line)s as an answer (%(problem)s): %(how)s",
                    line=_quoted(line),
                    problem=problem,
                    how=how,
                )
            answers.extend(found)
            read.append(line)
    if not answers:
        if read:
            return None, _(
                "we found no answer, accept or decline, in your reply (we read %(line)s): %(how)s",
                line=_quoted(read[0]),
                how=how,
            )
        return None, _("we found no answer, accept or decline, in your reply: %(how)s", how=how)
    if len(set(answers)) > 1:
        return None, _("we found both accept and decline in your reply: %(how)s", how=how)
    return answers[0], ""


def _read_line(line: str, locale: str = i18n.DEFAULT) -> tuple[list[bool], str]:
    """The answers a line gives (none for a remark) and "" or, when it is no answer and no
    short remark, why (in ``locale``)."""

    def _(message: str, **values: str) -> str:
        return i18n.gettext(locale, message, **values)

    if any(char.isdigit() for char in line):
        return [], _("it holds a number, which no answer has")
    clauses = [c for c in _CLAUSE_RE.findall(_DASH_RE.sub(", ", line)) if c.strip(" .!?,;:")]
    found: list[bool] = []
    remarks: list[str] = []
    for clause in clauses:
        normal = " ".join(clause.lower().split()).rstrip(".!?,;: ")
        if normal in _ANSWERS:
            if clause.rstrip().endswith("?"):
                return [], _("%(clause)s asks rather than answers", clause=_quoted(clause.strip()))
            found.append(_ANSWERS[normal])
        else:
            remarks.append(clause.strip())
    for remark in remarks:
        words = _WORD_RE.findall(remark.lower())
        if command := next((word for word in words if word in COMMAND_WORDS), None):
            return [], _("%(word)s is a command of a game, not an answer", word=_quoted(command))
        if doubt := _DOUBT_RE.search(remark):
            return [], _("%(word)s leaves the answer open", word=_quoted(doubt.group(0)))
        if len(words) > MAX_REMARK_WORDS:
            return [], _("%(remark)s is more than a short remark", remark=_quoted(remark))
    return found, ""


def _quoted(text: str) -> str:
    return "'" + " ".join(text.split()) + "'"
