"""How many replies of the outside corpora each reply extractor reads as upstream expects.

Run: ``PYTHONPATH=. python3 bench/reply_corpus.py`` (``--show`` prints each miss). First our
own corpus (``tests/mail/reply_corpus.py``: replies to the service's own notifications, all
five games, both seats, Elemento with three and four players, as some fifty mail clients
quote them in their charsets and encodings, ``tests/mail/mail_clients.py``; the figure is how
many are read as a person would, with the wrong moves and quoted example moves played,
which must stay 0). Then the
outside corpora: ``../shared/corpora/email-replies`` (see its README). A fixture counts
when its ``expected_reply`` is not null; it matches when the extracted text equals it after
whitespace normalisation (runs of whitespace collapsed to one space, stripped), both in the
one typography our extractor hands text on in (``service/mail/typography.py``).

Talon's quotation tests keep signatures ("Hello\\n\\nSent from my iPhone"); our extractor drops
them by design. So for those rows a second, *fair* figure also accepts the expected text minus
a short trailing signature: its last blank-line-separated paragraphs, at most 4 lines and 120
characters. The libraries compared are measured only if installed (``pip install
email-reply-parser mail-parser-reply talon``); every one gets the same MIME decoding (first
text/plain part) and, except talon which has its own HTML reader, our HTML-to-text.
"""

from __future__ import annotations

import email
import email.policy
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from service.mail import typography
from service.mail.extract import extract_reply, extract_text, html_to_text

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "email-replies"
CORPUS_NAMES = (
    "github-email_reply_parser",
    "zapier-email-reply-parser",
    "crisp-email-reply-parser",
    "mailgun-talon",
)


@dataclass(frozen=True)
class Fixture:
    corpus: str
    path: Path
    expected: str
    keeps_signature: bool


def fixtures(corpus: str) -> list[Fixture]:
    """The corpus rows that pin an expected reply."""
    folder = CORPORA / corpus
    rows = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    return [
        Fixture(
            corpus,
            folder / row["file"],
            row["expected_reply"],
            corpus == "mailgun-talon" and "signature.extract" not in (row["semantics"] or ""),
        )
        for row in rows
        if row["expected_reply"] is not None
    ]


def normalised(text: str) -> str:
    """Whitespace collapsed, in the one typography our extractor hands text on in (curly
    quotes and dashes straightened, ``service/mail/typography.py``): the same words."""
    return " ".join(typography.normalised(text).split())


def without_trailing_signature(expected: str) -> set[str]:
    """``expected`` minus its last paragraphs, where those are short enough to be a signature."""
    paragraphs = [p for p in expected.strip().split("\n\n") if p.strip()]
    shorter = set()
    for keep in range(1, len(paragraphs)):
        tail = "\n".join(paragraphs[keep:])
        if len(tail.strip().splitlines()) <= 4 and len(tail.strip()) <= 120:
            shorter.add(normalised("\n\n".join(paragraphs[:keep])))
    return shorter


def matches(fixture: Fixture, got: str, *, fair: bool) -> bool:
    if normalised(got) == normalised(fixture.expected):
        return True
    return (
        fair
        and fixture.keeps_signature
        and normalised(got) in without_trailing_signature(fixture.expected)
    )


def first_text_body(raw: bytes) -> str:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    for part in message.walk():
        if part.get_content_type() == "text/plain" and isinstance(part, EmailMessage):
            return str(part.get_content())
    return ""


Extractor = Callable[[Path], str]


def ours(path: Path) -> str:
    if path.suffix == ".eml":
        return extract_reply(path.read_bytes()).text
    return extract_text(path.read_text(encoding="utf-8"), html=path.suffix == ".html")


def text_library(parse: Callable[[str], str | None]) -> Extractor:
    """A library that reads plain text, fed our MIME decoding and HTML-to-text."""

    def extract(path: Path) -> str:
        if path.suffix == ".eml":
            body = first_text_body(path.read_bytes())
        elif path.suffix == ".html":
            body = html_to_text(path.read_text(encoding="utf-8")).replace("\x1e", "")
        else:
            body = path.read_text(encoding="utf-8")
        return parse(body) or ""

    return extract


def libraries() -> dict[str, Extractor]:
    found: dict[str, Extractor] = {}
    try:
        from email_reply_parser import EmailReplyParser

        found["email-reply-parser 0.5.12"] = text_library(EmailReplyParser.parse_reply)
    except ImportError:
        pass
    try:
        from mailparser_reply import EmailReplyParser as Multilingual
        from mailparser_reply.constants import MAIL_LANGUAGES

        parser = Multilingual(languages=list(MAIL_LANGUAGES))
        found["mail-parser-reply 1.36"] = text_library(lambda t: parser.read(t).replies[0].body)
    except ImportError:
        pass
    try:
        from talon import quotations
        from talon.utils import html_to_text as talon_html

        def talon(path: Path) -> str:
            if path.suffix == ".html":
                html = quotations.extract_from_html(path.read_text(encoding="utf-8"))
                return (talon_html(html) or b"").decode("utf-8") if html else ""
            return str(text_library(quotations.extract_from_plain)(path))

        found["talon 1.4.4"] = talon
    except ImportError:
        pass
    return found


def score(extract: Extractor, corpus: str, *, fair: bool = True) -> tuple[int, int, list[Path]]:
    """(matched, total, missed paths) of ``extract`` on ``corpus``."""
    rows = fixtures(corpus)
    missed = []
    for fixture in rows:
        try:
            got = extract(fixture.path)
        except Exception:  # a library crashing on a fixture is a miss, not the end of the run
            got = "\0crash"
        if not matches(fixture, got, fair=fair):
            missed.append(fixture.path)
    return len(rows) - len(missed), len(rows), missed


def own_corpus(show: bool) -> None:
    """Our corpus (tests/mail/reply_corpus.py): replies to our own mails, all five games."""
    from tests.mail.reply_corpus import reader, score

    result = score(reader)
    print("own corpus (tests/mail/reply_corpus.py), replies to our notifications")
    print(f"  read as a person would      {result.read:3} / {result.total}")
    print(f"  wrong moves played          {result.wrong:3}")
    print(f"  quoted example moves played {result.examples:3}")
    if show:
        for miss in result.missed:
            print(f"    miss: {miss}")


def long_bodies() -> None:
    """Seconds to find a move typed under a quote of 1 and 5 MB of our own notifications."""
    import time

    from tests.mail.reply_corpus import notification, positions

    text = notification(positions()[0]).text
    print("bottom-post under a long quote (extract_text, one core)")
    for megabytes in (1, 5):
        lines = text.splitlines() * (megabytes * 1_000_000 // len(text) + 1)
        quoted = "\n".join("> " + line for line in lines)
        body = f"On Sat, 1 Mar 2025, pbem <play@pbem.example> wrote:\n{quoted}\n\nd1-d4\n"
        started = time.perf_counter()
        found = extract_text(body)
        took = time.perf_counter() - started
        print(f"  {len(body):>10,} chars  {took:6.2f} s  read {found!r}")


def main() -> None:
    show = "--show" in sys.argv
    own_corpus(show)
    long_bodies()
    candidates = {"ours (service.mail.extract)": ours, **libraries()}
    for name, extract in candidates.items():
        print(name)
        for corpus in CORPUS_NAMES:
            matched, total, missed = score(extract, corpus)
            line = f"  {corpus:28} {matched:3} / {total}"
            if corpus == "mailgun-talon":
                strict = score(extract, corpus, fair=False)[0]
                line += f"   (strict, signatures kept: {strict} / {total})"
            print(line)
            if show:
                for path in missed:
                    print(f"    miss: {path.relative_to(CORPORA)}")


if __name__ == "__main__":
    main()
