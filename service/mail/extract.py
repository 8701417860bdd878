"""What a player typed in a reply mail, and the facts the gateway needs about that mail.

``extract_reply(raw)`` reads a raw RFC 5322 message; ``extract_text(body)`` reads a body alone.
Both are pure and never raise on bad input: a mail we cannot read gives an empty text and a
``problem`` saying why, so one hostile or broken mail costs one reply, not the gateway.
The sender is read by :func:`author_of`, the one reading of the From that the gateway and
sender authentication both use; a From that is not exactly one mailbox is refused
(``Reply.sender_problem``).

How the typed text is cut out of a body, in order (each rule says why it exists):

1. **Our own marker.** Every notification we send starts with ``REPLY_MARKER``; a reply ends at
   the first line containing ``reply above this line`` (quoted or not, any decoration). This is
   the rule that keeps a quoted board and the example moves of a notification from ever being
   read as a move, even from clients that append the original without ``>`` (Outlook). When the
   marker line is ``>``-quoted and nothing was typed above it, the player bottom-posted: the
   unquoted lines below it are the reply.
2. **Generic quote detection**, for replies whose marker was lost: ``>``-quoted lines are dropped
   wherever they are (so bottom-posted and interleaved text survives); the reply ends at an
   unquoted quote header: ``-----Original Message-----`` and its translations, or in any
   language a few words framed by dashes (Zimbra's ``----- Ursprüngliche Mail -----``, QQ
   Mail's ``------ 原始邮件 ------``); an Outlook ``From:``/``Sent:`` block (also split over
   lines and translated), or in any language three ``Field: value`` lines naming an address
   and a date (QQ Mail's 发件人/发送时间, Outlook's Hebrew מאת/נשלח); an ``On ... wrote:``
   attribution that is not followed by a ``>`` quote. Attributions are found by their words
   in many languages (also split over up to three lines) and, in any language, by their
   shape: a line ending in a colon holding a date and a time (Thunderbird's "#2 #3" in every
   locale, Mail.ru), or a date and an address (FairEmail's and Yandex's ``<date> <time>
   <address>:``, Gmail's right-to-left ones once their directional marks are dropped), or,
   right above a ``>`` quote, a short line with no move in it ("Ann 写道:"). A line of one
   of our ASCII boards ends the reply too (a last fence: no person types one).
3. **Signatures and client boilerplate**: a ``--``/``__`` delimiter line, "Sent from my iPhone"
   and its kin, a closing ("Thanks,", "Mit freundlichen Grüßen / Kind regards") followed by a
   short name block and company footer paragraphs, and trailing contact or footer paragraphs
   (e-mail, phone, web address, postal address, registration and tax numbers, disclaimers).

The text is handed on in one typography for every game (``typography.py``): NFKC, dashes,
quotes, spaces, no invisible or directional marks.

HTML-only mail is turned into text first; ``<blockquote>`` and the quote containers of Gmail,
Thunderbird and Yahoo become ``>``-quoted lines, and the reply/forward header containers of
Outlook (and any ``<hr>``) end the reply.
"""

from __future__ import annotations

import email
import email.policy
import functools
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from email.header import decode_header
from email.headerregistry import AddressHeader
from email.message import Message
from email.policy import EmailPolicy
from html.parser import HTMLParser
from typing import Any

from service.i18n import N_, Said
from service.mail import phrases
from service.mail.typography import normalised

REPLY_MARKER = "## Reply ABOVE this line ##"
"""The first line of every notification we send: everything from it on is ours, not the player's."""

READ_SECONDS = 30.0
"""No body is cut: a move typed under a huge quote must be found. Mail is bounded by
PBEM_INBOUND_MAX_BYTES before it gets here and every step is linear in the body (about a
second a megabyte of quoted text on a loaded machine: ``bench/reply_corpus.py``); past this
limit the reply says the mail was too long to read, never that nothing was typed."""


@dataclass(frozen=True)
class Reply:
    """The typed text of one inbound mail plus what the gateway routes and filters on."""

    text: str
    sender: str = ""
    subject: str = ""
    message_id: str = ""
    in_reply_to: str = ""
    references: tuple[str, ...] = ()
    automated: str = ""
    """Why the mail looks machine-sent (auto-reply, bounce, bulk), or "" for a person."""
    problem: str = ""
    """Why no typed text was found, or "" when some was."""
    sender_problem: str = ""
    """Why the From is refused (not exactly one author: :func:`author_of`), or ""; ``sender``
    is then ""."""
    sender_said: Said | None = None
    """The same, to say in any reader's language."""
    signature: tuple[str, ...] = ()
    """The non-blank lines typed under the reply that were cut as a signature or sign-off."""

    @property
    def is_automated(self) -> bool:
        return bool(self.automated)


def extract_reply(raw: bytes | str) -> Reply:
    """The typed reply in a raw RFC 5322 message, with its routing facts."""
    if not raw or not raw.strip():
        return Reply("", problem="empty message")
    # Mail from the internet is hostile: any failure inside the stdlib parser on a malformed
    # message must become a reason, never an exception in the gateway.
    try:
        message = _parse(raw)
        facts = _facts(message)
        body = _body(message)
    except Exception as exc:
        return Reply("", problem=f"unreadable message: {type(exc).__name__}: {exc}")
    if body is None:
        return replace(facts, problem="no text part")
    try:
        text, signature = _split_body(body[0], html=body[1], deadline=_deadline())
    except _TooLong:
        # Said, never silent: the player is told the mail was too long to read in time.
        problem = f"the mail is too long to read within {READ_SECONDS:.0f} seconds"
        return replace(facts, problem=problem)
    problem = "" if text else "nothing typed above the quoted text"
    return replace(facts, text=text, problem=problem, signature=signature)


def extract_text(body: str, *, html: bool = False) -> str:
    """The typed reply in a decoded body (plain text, or HTML when ``html``)."""
    return _split_body(body, html=html)[0]


class _TooLong(Exception):
    """Reading the body took longer than ``READ_SECONDS``."""


def _deadline() -> float:
    return time.monotonic() + READ_SECONDS


def _split_body(
    body: str, *, html: bool, deadline: float = float("inf")
) -> tuple[str, tuple[str, ...]]:
    """The typed reply, and the signature lines cut from under it."""
    text = html_to_text(body) if html else body
    if time.monotonic() > deadline:
        raise _TooLong
    lines, signature = _typed_lines(_clean_lines(text), deadline)
    return "\n".join(lines).strip("\n"), tuple(line.strip() for line in signature if line.strip())


# --- MIME ------------------------------------------------------------------------------------


class _Reading(EmailPolicy):
    """``email.policy.default``, each header value parsed once: reading a mail asks for its
    parts' ``Content-Type`` about seven times, and the package parses the header afresh on
    every ask (a third of reading a reply; issue 23). A parsed header is never changed, so
    the one parse may be shared; a long value is parsed each time, not kept."""

    def header_fetch_parse(self, name: str, value: Any) -> Any:
        if type(value) is str and len(value) <= LONG_HEADER:
            return _fetched(self, name, value)
        return super().header_fetch_parse(name, value)


LONG_HEADER = 998
"""RFC 5322's longest line: a header value past it is not kept for the next ask."""


@functools.lru_cache(maxsize=1024)
def _fetched(policy: EmailPolicy, name: str, value: str) -> Any:
    return EmailPolicy.header_fetch_parse(policy, name, value)


READING = _Reading()
"""What every mail read here is parsed with: the settings of ``email.policy.default``."""


def _parse(raw: bytes | str) -> Message:
    if isinstance(raw, bytes):
        return email.message_from_bytes(raw, policy=READING)
    return email.message_from_string(raw, policy=READING)


def _header(message: Message, name: str) -> str:
    """A header's decoded value on one line; "" when absent or undecodable."""
    try:
        value = message.get(name)
    except Exception:  # a malformed header must not cost the rest of the mail
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _facts(message: Message) -> Reply:
    """Everything but the text."""
    author = author_of(message)
    sender = author.address
    return Reply(
        "",
        sender=sender,
        sender_problem=author.problem,
        sender_said=author.said,
        subject=_header(message, "Subject"),
        message_id=_header(message, "Message-ID"),
        in_reply_to=_header(message, "In-Reply-To"),
        references=tuple(_header(message, "References").split()),
        automated=_automated(message, sender),
    )


@dataclass(frozen=True)
class Author:
    """Who a mail says wrote it: the one mailbox of its From."""

    address: str = ""
    """That mailbox's address, lowercased; "" when the From names none or is refused."""
    said: Said | None = None
    """Why the From is refused (in any reader's language), or None."""

    @property
    def problem(self) -> str:
        """Why the From is refused, in English, or ""."""
        return str(self.said) if self.said else ""


_ADDRESS_LIKE = re.compile(r"[^\s<>()\[\]\",;:@\\]+@[^\s<>()\[\]\",;:@\\]+")
"""Anything that reads as an address (``x@y``), wherever it stands in a From."""


def author_of(message: Message) -> Author:
    """The one reading of the From of ``message`` (parsed with ``policy.default``): the
    gateway routes on it and sender authentication checks it, so both decide about the same
    address. Never raises.

    The From must be exactly one mailbox (``email.headerregistry``), and no other address may
    appear in it: one From header, no group, one address, and no display name or comment
    holding another address, encoded words decoded (``alice@example.org
    <mallory@evil.test>``, ``=?utf-8?q?alice=40example.org?= <mallory@evil.test>``,
    ``alice@example.org (mallory@evil.test)``). Readers disagree on such a From (``parseaddr``
    takes the name's address, the sender's mail server judged the other one), so it is
    refused. A display name that is the address itself is fine. A From with no address at all
    is no author and no problem: such mail is not answered (``guard.unanswerable``).
    """
    try:
        return _author(message)
    except Exception as exc:  # hostile mail: a reason, never an exception
        return Author(said=Said.of(FROM_UNREADABLE, error=type(exc).__name__))


def _author(message: Message) -> Author:
    written = [_utf8(value) for name, value in message.raw_items() if name.lower() == "from"]
    if not written:
        return Author()
    if len(written) > 1:
        return Author(said=Said.of(FROM_HEADERS, count=len(written)))
    header = message["From"]
    if not isinstance(header, AddressHeader):  # parsed without policy.default: a bug of ours
        raise TypeError("the From is read from a message parsed with policy.default")
    shown = " ".join(str(header).split())
    if any(group.display_name is not None for group in header.groups):
        return Author(said=Said.of(FROM_GROUP, shown=shown))
    addresses = header.addresses
    if len(addresses) > 1:
        return Author(said=Said.of(FROM_ADDRESSES, count=len(addresses), shown=shown))
    if not addresses or not addresses[0].username or not addresses[0].domain:
        return Author()
    address = _utf8(addresses[0].addr_spec).lower()
    texts = (written[0], _decoded(written[0]), shown)
    others = [a for text in texts for a in _ADDRESS_LIKE.findall(text) if a.lower() != address]
    if others:
        return Author(said=Said.of(FROM_TWO_NAMES, address=address, other=others[0]))
    return Author(address)


FROM_UNREADABLE = N_("its From header cannot be read (%(error)s)")
FROM_HEADERS = N_("it has %(count)s From headers; a reply has one author")
FROM_GROUP = N_("its From is a group (%(shown)s), not one author")
FROM_ADDRESSES = N_("its From names %(count)s addresses (%(shown)s); a reply has one author")
FROM_TWO_NAMES = N_(
    "its From is %(address)s but also names %(other)s (in a display name or comment), so "
    "which of them wrote it is not clear"
)


def _utf8(value: object) -> str:
    """Raw 8-bit header text (kept by the parser as surrogate escapes) read as UTF-8."""
    return str(value).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _decoded(value: str) -> str:
    """``value`` with its encoded words (RFC 2047) decoded, each byte as one character: enough
    to see an address in them whatever charset they claim."""
    try:
        parts = decode_header(value)
    except Exception:  # undecodable words show nothing to anyone
        return value
    return "".join(p.decode("latin-1") if isinstance(p, bytes) else p for p, _ in parts)


_AUTOREPLY_HEADERS = ("X-Autoreply", "X-Autorespond", "X-Autoresponse", "X-Auto-Reply")
_BULK_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}


def _automated(message: Message, sender: str) -> str:
    """Why the headers say no person wrote this (RFC 3834 and common practice), or ""."""
    submitted = _header(message, "Auto-Submitted").lower()
    if submitted and submitted != "no":
        return f"Auto-Submitted: {submitted}"
    for name in _AUTOREPLY_HEADERS:
        if _header(message, name):
            return f"{name} header present"
    precedence = _header(message, "Precedence").lower()
    if precedence in _BULK_PRECEDENCE:
        return f"Precedence: {precedence}"
    if message.get_content_type() == "multipart/report":
        return "multipart/report (a delivery or read report)"
    if _header(message, "Return-Path") == "<>":
        return "Return-Path: <> (a bounce)"
    if sender.partition("@")[0] in {"mailer-daemon", "postmaster"}:
        return f"sent by {sender}"
    if _header(message, "List-Id") or _header(message, "List-Unsubscribe"):
        return "mailing-list headers (List-Id/List-Unsubscribe)"
    return ""


def _leaf_parts(part: Message) -> Iterator[Message]:
    """Non-container parts in order, not descending into attached messages (forwards)."""
    if part.is_multipart():
        for sub in part.get_payload():
            if isinstance(sub, Message):
                yield from _leaf_parts(sub)
    elif part.get_content_maintype() != "message":
        yield part


def _body(message: Message) -> tuple[str, bool] | None:
    """The first inline text/plain body, else the first text/html one: (text, is_html)."""
    found: dict[str, str] = {}
    for part in _leaf_parts(message):
        kind = part.get_content_type()
        wanted = kind in ("text/plain", "text/html") and kind not in found
        if wanted and part.get_content_disposition() != "attachment":
            found[kind] = _decode(part)
    if found.get("text/plain", "").strip():
        return found["text/plain"], False
    if found.get("text/html", "").strip():
        return found["text/html"], True
    return None


def _decode(part: Message) -> str:
    """A part's text: transfer encoding undone, then its charset, then the usual mislabels."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    # Declared charsets are often wrong or unknown; windows-1252 is what mislabelled
    # "us-ascii"/"iso-8859-1" mail really is, and latin-1 decodes any byte at all.
    for charset in (part.get_content_charset() or "utf-8", "utf-8", "windows-1252"):
        try:
            return payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("latin-1")


# --- HTML --------------------------------------------------------------------------------------

_CUT = "\x1e"  # the line the HTML reader leaves where a client's reply header starts

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"}
_SKIPPED = {"head", "style", "script", "title", "template"}
_BLOCKS = {
    "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "fieldset",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "main",
    "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
}  # fmt: skip
# Containers that hold the quoted original (and its attribution line) in Gmail, Thunderbird
# and Yahoo: read as ">"-quoted, so a bottom-posted reply after them survives.
_QUOTE_CLASSES = {"gmail_quote", "gmail_attr", "moz-cite-prefix", "yahoo_quoted"}
# Outlook puts its "From:/Sent:" header here and the original after it, unquoted: cut.
_CUT_IDS = {"divrplyfwdmsg", "appendonsend", "olk_src_body_section"}


class _HtmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._words: list[str] = []
        self._open: list[tuple[str, str]] = []  # (tag, effect) of each open element
        self._depth = {"skip": 0, "quote": 0, "pre": 0}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if tag == "br":
            self._flush(keep_empty=True)
        elif tag == "hr" or attributes.get("id", "").lower() in _CUT_IDS:
            self._flush()
            if not self._depth["quote"]:  # inside a quote it is the original's, not a cut
                self.lines.append(_CUT)
        if tag in _VOID:
            return
        if tag in _BLOCKS:
            self._flush()
        effect = ""
        if tag in _SKIPPED:
            effect = "skip"
        elif tag == "blockquote" or _QUOTE_CLASSES & set(attributes.get("class", "").split()):
            effect = "quote"
        elif tag == "pre":
            effect = "pre"
        self._open.append((tag, effect))
        if effect:
            self._depth[effect] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCKS:
            self._flush()
        if all(open_tag != tag for open_tag, _ in self._open):
            return  # a stray end tag: browsers ignore it too
        while self._open:
            open_tag, effect = self._open.pop()
            if effect:
                self._flush()
                self._depth[effect] -= 1
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._depth["skip"]:
            return
        if not self._depth["pre"]:
            self._words.append(data)
            return
        first, *rest = data.split("\n")
        self._words.append(first)
        for line in rest:
            self._flush(keep_empty=True)
            self._words.append(line)

    def text(self) -> str:
        self._flush()
        return "\n".join(self.lines)

    def _flush(self, *, keep_empty: bool = False) -> None:
        text = "".join(self._words)
        self._words = []
        text = text.rstrip() if self._depth["pre"] else " ".join(text.split())
        if text or keep_empty:
            self.lines.append(("> " * self._depth["quote"] + text).rstrip())


def html_to_text(html: str) -> str:
    """Visible text of an HTML body; quotes as ">" lines, reply headers as a cut line."""
    reader = _HtmlText()
    try:
        reader.feed(html)
        reader.close()
    except Exception:  # the stdlib parser still trips on some broken markup: keep what it read
        pass
    return reader.text()


# --- plain text: quotes ---------------------------------------------------------------------

_MARKER_RE = re.compile(r"\b(?:reply|write|type|respond)\s+above\s+this\s+line\b", re.I)

_WROTE = (
    r"wrote|writes|schrieb|schreef|a [ée]crit|escribi[óo]|escreveu|ha scritto|scrisse|skrev|"
    r"kirjoitti|napisa[łl](?:a|\(a\))?|napsala?|написала?|написал\(а\)|írta|yazdı|έγραψε|kirjutas|rašė|"
    r"pisze|пишет|пише|написав|написала|написал"
)
_WROTE_END_RE = re.compile(rf"\b(?:{_WROTE})\s*:?\s*-*\s*$", re.I)
# The verb first, then the date: "Ann <ann@example.com> schrieb am Sa., 1. März 2025, 17:00:"
_WROTE_MID_RE = re.compile(
    rf"\s(?:{_WROTE})\s+(?:am|on|le|el|il|em|op|den|dne|w dniu|в)\s.*\d.*:\s*$", re.I
)
_ATTRIBUTION_TAIL = 120
_VERB_TAIL = 24  # the longest verb ("napisał(a)", "ha scritto") with its colon and dashes
# Mutt's default: "* Ann <ann@example.com> [2025-03-01 17:00 +0100]:"
_MUTT_RE = re.compile(r"^\s*\*\s.*\[\d{4}-\d\d-\d\d[^\]]*\]\s*:\s*$")
# Gmail in some languages has no verb: "ср, 30 апр. 2025 г. в 15:19, John Doe <doe@example.com>:",
# nor have FairEmail ("1 Mar 2025 17:00:04 Ann <ann@example.com>:", or a bare address), Yandex,
# Mail.ru ("Суббота, 1 марта 2025, 17:00 +03:00 от Ann <ann@example.com>:") or Tuta.
_ADDRESS_END_RE = re.compile(r"(?:<\S+@\S+>|[^\s<>@]+@[^\s<>@]+\.\w+)\s*:\s*$")
# How an attribution begins: "On", its translations, a date, a weekday ("ср, 30 апр.",
# "Суббота, 1 марта"), dashes.
_ATTRIBUTION_START_RE = re.compile(
    r"^\s*(?:-{2,}\s*)?"
    r"(?:(?:on|am|le|el|il|em|op|den|på|w dniu|dne|dnia|в|στις)\b|\d|[^\W\d_]+\.?,\s*\d)",
    re.I,
)
# The structural rule, for headers in any language: a line ending in a colon that holds a date
# and a time (Thunderbird's "#2 #3" in every locale: "在 2025/3/1 17:00, Ann 写道:",
# "2025-03-01 오후 5:00에 Ann 이(가) 쓴 글:", "في 01/03/2025 17:00، كتب Ann:").
_DATE_RE = re.compile(
    r"(?<!\d)(?:(?:19|20)\d\d(?!\d)|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}(?!\d))|\d{1,4}\s*年"
)
_TIME_RE = re.compile(r"(?<![\d:])\d{1,2}:\d\d(?!\d)")
_COLON_END_RE = re.compile(r":\s*-*\s*$")
# What a wrapped header never swallows from the line above it: a move or orders.
_NOTATION_TOKEN_RE = re.compile(r"(?=\S*\d)[\w@:/-]+|\w{1,2}:[^\W\d_]{2,6}")

_FROM_WORDS = "from|von|de|da|van|fra|från|od|от|lähettäjä|feladó|kimden|expéditeur|afzender"
_FIELD_WORDS = (
    "sent|date|to|subject|cc|gesendet|datum|an|betreff|envoyé|objet|à|a|enviado|asunto|para|"
    "fecha|inviato|oggetto|data|verzonden|aan|onderwerp|sendt|til|emne|dato|skickat|till|ämne|"
    "wysłano|temat|do|отправлено|кому|тема|дата|lähetetty|vastaanottaja|aihe|elküldve|címzett|"
    "tárgy|gönderildi|kime|konu|tarih"
)
_FROM_RE = re.compile(rf"^\s*\*?(?:{_FROM_WORDS})\s*\*?\s*:\s*\*?\s*\S", re.I)
_FIELD_RE = re.compile(rf"^\s*\*?(?:{_FIELD_WORDS})\s*\*?\s*:", re.I)
_FIELD_VALUE_RE = re.compile(rf"^\s*\*?(?:{_FIELD_WORDS})\s*\*?\s*:\s*\*?\s*\S", re.I)
_SEPARATOR_RE = re.compile(
    r"^\s*[-_=]*\s*(?:original message|ursprüngliche nachricht|message d'origine|"
    r"mensaje original|messaggio originale|mensagem original|oorspronkelijk bericht|"
    r"oprindelig besked|opprinnelig melding|ursprungligt meddelande|alkuperäinen viesti|"
    r"wiadomość oryginalna|původní zpráva|исходное сообщение|forwarded message|"
    r"weitergeleitete nachricht|message transféré|mensaje reenviado|begin forwarded message)"
    r"\s*:?\s*[-_=]*\s*$",
    re.I,
)
# The same structurally, in any language: a few words framed by runs of dashes on both sides
# ("----- Ursprüngliche Mail -----" of Zimbra, QQ Mail's "---------- 原始邮件 ----------",
# Proton's "------- Original Message -------"). Never digits: "-- d1-d4 --" is a move.
_FRAMED_RE = re.compile(r"^\s*[-_=]{3,}\s*[^\W\d_][^\d\-_=]{0,40}?[-_=]{3,}\s*$")
# Any client's header block, in any language: "Field: value" lines, one naming an address
# (QQ Mail's 发件人/发送时间/收件人/主题, Outlook in Hebrew מאת/נשלח/אל/נושא, IBM Notes' tabs).
_ANY_FIELD_RE = re.compile(r"^\s*\*?[^\W\d_][^:\d<>@]{1,24}?\*?\s*:\s*\S")
# Lines of our own ASCII boards (engine.notation.frame): " 12 | B B . | 12" and "+-----+".
# Anti-Grid draws points and links instead: " 16      B~~~~~~~B~~~ ... B  16".
_BOARD_RE = re.compile(r"^\s*(?:(\S{1,3}) \|.*\| \1|\+-{3,}\+|(\d{1,2}) {2,}\S.*\S {2,}\2)\s*$")


def _clean_lines(text: str) -> list[str]:
    # One typography for every game (``typography.py``): the quote headers of right-to-left
    # clients are found through their directional marks, and the reply is handed on as read.
    text = normalised(text.replace("\r\n", "\n").replace("\r", "\n"))
    # Gmail wraps a long attribution inside its address ("... <ann@example.com\n>:"); the
    # orphan ">:" would otherwise read as a quote line and hide the attribution.
    text = re.sub(r"(<[^<>\s]+@[^<>\s]+)\n(>:)[ \t]*$", r"\1\2", text, flags=re.M)
    return [line.rstrip() for line in text.split("\n")]


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _typed_lines(lines: list[str], deadline: float = float("inf")) -> tuple[list[str], list[str]]:
    quote_ahead = _quote_ahead(lines)
    attributions = dict(_attributions(lines, quote_ahead))
    start = 0
    while True:
        if time.monotonic() > deadline:
            raise _TooLong
        cut, marker_quoted = _first_cut(lines, start, attributions, quote_ahead)
        typed = _unquoted(lines, start, cut, attributions, quote_ahead)
        if typed or not marker_quoted:
            kept = _without_signature(typed)
            return kept, typed[len(kept) + _leading_blanks(typed) :]
        # Nothing above our ">"-quoted notification: a bottom-post, typed below or inside it
        # (a quoted thread may hold many of our mails: each is skipped the same way).
        start = cut + 1


def _first_cut(
    lines: list[str], start: int, attributions: dict[int, int], quote_ahead: list[bool]
) -> tuple[int, bool]:
    """Where the typed reply ends for sure, and whether that is our marker in a ">" quote."""
    for index in range(start, len(lines)):
        line = lines[index]
        if _MARKER_RE.search(line):
            return index, _is_quoted(line)
        if _is_quoted(line) or not line.strip():
            continue
        if line == _CUT or _separator(line) or _header_block_at(lines, index):
            return index, False
        if index in attributions and not quote_ahead[attributions[index]]:
            return index, False
        if _BOARD_RE.match(line):
            return max(start, _paragraph_start(lines, index)), False
    return len(lines), False


def _separator(line: str) -> bool:
    return bool(_SEPARATOR_RE.match(line) or _FRAMED_RE.match(line))


def _attributions(lines: list[str], quote_ahead: list[bool]) -> Iterator[tuple[int, int]]:
    """(first line, line after) of each "On <date>, <name> wrote:" line or split lines."""
    for end, line in enumerate(lines):
        if len(line) > 400:
            continue
        # The verb, the date after it or the address stand near the end: searching only the
        # tail keeps a body of many thousand quoted lines fast.
        tail = line[-_ATTRIBUTION_TAIL:]
        if tail.endswith(":") and (_WROTE_MID_RE.search(tail) or _MUTT_RE.match(line)):
            yield end, end + 1
            continue
        verb = bool(_WROTE_END_RE.search(tail.rstrip()[-_VERB_TAIL:]))
        if not verb and not _COLON_END_RE.search(tail):
            continue
        start = _attribution_start(lines, end)
        joined = " ".join(lines[start : end + 1])
        if verb:
            # A date or an address tells a header from prose such as "my friend wrote:".
            if _ATTRIBUTION_START_RE.match(lines[start].lstrip("> ")) or re.search(
                r"\d|<\S+@\S+>", joined
            ):
                yield start, end + 1
        elif _dated(line):
            yield end, end + 1
        elif _wrapped_dated(lines, start, end) or _addressed(tail, joined):
            yield start, end + 1
        elif quote_ahead[end + 1] and _bare_attribution(line):
            yield end, end + 1


def _attribution_start(lines: list[str], end: int) -> int:
    """Where the header ending at ``end`` starts. A long header is wrapped by the client:
    take up to two lines above it, unless the header is whole already (it starts like one, or
    holds its date and time) or the line above closes a sentence, ends a header of its own
    or is a move (then that line is not part of it, as in "...nibh.\nOn ... wrote:" or
    "d1-d4\nSa., 1. März 2025, 17:00 ...:")."""
    start = end
    while (
        not _ATTRIBUTION_START_RE.match(lines[start].lstrip("> "))
        and not _dated(lines[start])
        and start > end - 2
        and start > 0
        and lines[start - 1].strip()
        and not lines[start - 1].rstrip().endswith((".", "!", "?", ":"))
        and not _only_notation(lines[start - 1])
    ):
        start -= 1
    return start


def _wrapped_dated(lines: list[str], start: int, end: int) -> bool:
    """A header wrapped over lines that starts like one and holds a date and a time."""
    joined = " ".join(lines[start : end + 1])
    return start < end and _dated(joined) and bool(_ATTRIBUTION_START_RE.match(lines[start]))


def _addressed(tail: str, joined: str) -> bool:
    """A header ending in the sender's address and a colon, with a date (a digit) in it."""
    return bool(_ADDRESS_END_RE.search(tail) and re.search(r"\d", joined))


def _dated(text: str) -> bool:
    return bool(_DATE_RE.search(text) and _TIME_RE.search(text))


def _only_notation(line: str) -> bool:
    words = [word.strip("\"'()[]{}.,;!?") for word in line.split()]
    return bool(words) and all(_NOTATION_TOKEN_RE.fullmatch(word) for word in words if word)


def _bare_attribution(line: str) -> bool:
    """A short line ending in a colon right above a ">" quote, in any language and with no
    date ("Ann 写道:", "Ann 이(가) 쓴 글:", "كتب Ann:"): its quote follows, so it is the
    quote's header. A line with a move in it is never one."""
    text = line.strip().lstrip("> ")
    return (
        len(text) <= 80
        and len(text.split()) <= 8
        and not any(_NOTATION_TOKEN_RE.fullmatch(word.strip(":")) for word in text.split())
    )


def _quote_ahead(lines: list[str]) -> list[bool]:
    """For each index, whether the next non-blank line from there on is ">"-quoted.

    Computed once per body, so a hostile run of attributions and blank lines stays linear.
    """
    ahead = [False] * (len(lines) + 1)
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        ahead[index] = _is_quoted(line) if line.strip() else ahead[index + 1]
    return ahead


def _header_block_at(lines: list[str], index: int) -> bool:
    """An Outlook-style "From: ... / Sent: ... / To: ..." block (a wrapped From: allowed),
    or one that starts with another field ("Sent:", "Date:", "To:") and names the sender;
    or, in any language, a header block (:func:`_any_header_block_at`). A line of notation
    never starts one (Nelaxtam's "A:nw" is no Italian "A:" field)."""
    if _only_notation(lines[index]):
        return False
    if _FROM_RE.match(lines[index]):
        return any(_FIELD_RE.match(line) for line in lines[index + 1 : index + 4])
    if _FIELD_VALUE_RE.match(lines[index]):
        block = lines[index + 1 : index + 5]
        fields = sum(1 for line in block if _FIELD_VALUE_RE.match(line) or _FROM_RE.match(line))
        if fields >= 2 and any(_FROM_RE.match(line) for line in block):
            return True
    return _any_header_block_at(lines, index)


def _any_header_block_at(lines: list[str], index: int) -> bool:
    """Three or more "Field: value" lines in a row (the first two adjacent, then one blank
    line allowed, as QQ Mail puts before 主题), one naming an address and one a date: the
    header of a quoted original in whatever language the client speaks. A label of ours
    ("Mein Zug: d1-d4") never starts one."""
    if not _ANY_FIELD_RE.match(lines[index]) or phrases.has_label(lines[index]):
        return False
    if index + 1 >= len(lines) or not _ANY_FIELD_RE.match(lines[index + 1]):
        return False  # a header block starts with two fields in a row
    block: list[str] = []
    for line in lines[index : index + 7]:
        if _ANY_FIELD_RE.match(line):
            block.append(line)
        elif line.strip() or (block and not block[-1].strip()):
            break  # the block ends at a line of another kind, or at two blank lines
        else:
            block.append(line)
    fields = [line for line in block if line.strip()]
    return (
        len(fields) >= 3
        and any("@" in line for line in fields)
        and any(_DATE_RE.search(line) for line in fields)
    )


def _paragraph_start(lines: list[str], index: int) -> int:
    while index > 0 and lines[index - 1].strip():
        index -= 1
    return index


def _unquoted(
    lines: list[str],
    start: int,
    end: int,
    attributions: dict[int, int],
    quote_ahead: list[bool],
) -> list[str]:
    """The lines in ``start:end`` a person typed: no ">" quotes, nor the attribution of one."""
    skip: set[int] = set()
    for first, after in attributions.items():
        if quote_ahead[after]:
            skip.update(range(first, after))
    typed = [
        lines[index]
        for index in range(start, end)
        if index not in skip
        and not _is_quoted(lines[index])
        and not (index > start and _wraps_quote(lines, index))
    ]
    while typed and not typed[0].strip():
        typed.pop(0)
    return typed


def _wraps_quote(lines: list[str], index: int) -> bool:
    """A lone line between two quoted lines is the quote re-wrapped by the client, not typed:
    under a quoted line long enough to have been wrapped, or a fragment ("| 12") that no
    one types. A word under a short quoted line ("> Your turn" then "d1-d4") was typed, as
    in an interleaved reply."""
    line = lines[index].strip()
    return (
        0 < index < len(lines) - 1
        and bool(line)
        and _is_quoted(lines[index - 1])
        and bool(lines[index - 1].strip(" >"))
        and (len(lines[index - 1].strip(" >")) >= _WRAPPED or not _starts_a_word(line))
        and _is_quoted(lines[index + 1])
    )


_WRAPPED = 40


def _starts_a_word(line: str) -> bool:
    """Typed text starts with a letter or digit, maybe inside quotes or brackets."""
    bare = line.lstrip("\"'([«")
    return bool(bare) and bare[0].isalnum()


# --- plain text: signatures --------------------------------------------------------------------

_DELIMITER_RE = re.compile(r"^\s*(?:--|_{2,})\s*$")
# A longer rule ("-----", "====") starts a signature only after a blank line: right under a
# line it underlines a heading.
_RULE_RE = re.compile(r"^\s*(?:-{3,}|={2,})\s*$")
_BOILERPLATE_RE = re.compile(
    r"^\s*(?:(?:sent|envoyé|enviado|inviato|gesendet|verzonden|skickat|sendt|lähetetty|wysłane|"
    r"отправлено)\s+(?:from|with|via|using|on|de|depuis|à partir de|desde|da|von|mit|met|vanaf|"
    r"från|fra|z|с|из)\s+[\w.&' -]{1,40}?|get outlook for \w+|von meinem [\w ]{1,30} gesendet)"
    r"\s*[.!]?\s*(?:<[^>]*>|\(?https?://\S+\)?)?\s*$",
    re.I,
)
_CLOSING_RE = re.compile(
    r"^\s*(?:(?:best|kind|warm|warmest|many|with)\s+)?(?:regards|wishes|thanks|thank you|"
    r"cheers|best|greetings|rgds|thx|yours|sincerely|yours sincerely|yours truly|mfg|"
    r"(?:viele|liebe|beste|freundliche)? ?grüße|gruß|cordialement|bien à vous|amitiés|saludos|"
    r"un saludo|atentamente|cordiali saluti|saluti|met vriendelijke groet|groeten|mvh|"
    r"hälsningar|med vänlig hälsning|pozdrawiam|с уважением)\s*[,.!]*\s*$",
    re.I,
)
# Moves can be digits and dashes ("3-4 5-6"), so a phone number needs a "+", "(...)" or a word.
_CONTACT_RE = re.compile(
    r"\S+@\S+\.\w+|https?://|www\.|\+\d[\d ().-]{6,}\d|\(\d{2,4}\)\s?\d"
    r"|\b(?:tel|phone|mobile|fax)\b",
    re.I,
)


def _without_signature(lines: list[str]) -> list[str]:
    """Cut at a delimiter or client boilerplate, then drop a closing and the name block and
    company footer under it, then any trailing contact or footer paragraphs."""
    for index, line in enumerate(lines):
        if (
            _DELIMITER_RE.match(line)
            or (_RULE_RE.match(line) and (index == 0 or not lines[index - 1].strip()))
            or _BOILERPLATE_RE.match(line)
        ):
            lines = lines[:index]
            break
    lines = _trimmed(lines)
    for index in range(len(lines) - 1, 0, -1):
        if _is_closing(lines[index]) and _signature_tail(lines[index + 1 :]):
            return _trimmed(lines[:index])
    while lines:
        start = _paragraph_start(lines, len(lines) - 1)
        if start == 0 or not _is_footer_block(lines[start:]):
            break
        lines = _trimmed(lines[:start])
    return lines


def _is_closing(line: str) -> bool:
    """A closing ("Regards,"), also one said twice over ("Mit freundlichen Grüßen / Kind
    regards")."""
    parts = [line, *re.split(r"\s[/|]\s", line)]
    return any(_CLOSING_RE.match(part) or phrases.is_sign_off(part) for part in parts)


_NAME_BLOCK_LINES = 6
_FOOTER_LINES = 12


def _signature_tail(lines: list[str]) -> bool:
    """What follows a closing is a signature: short name lines (at most ``_NAME_BLOCK_LINES``
    of them), and company footer paragraphs (registration, address, phone, disclaimer)."""
    names = 0
    for paragraph in _paragraphs(lines):
        if _is_footer_block(paragraph):
            continue
        names += len(paragraph)
        if names > _NAME_BLOCK_LINES or any(len(line.strip()) > 60 for line in paragraph):
            return False
    return True


def _paragraphs(lines: list[str]) -> Iterator[list[str]]:
    paragraph: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            paragraph.append(line)
        elif paragraph:
            yield paragraph
            paragraph = []


def _is_footer_block(block: list[str]) -> bool:
    """A paragraph of contact lines under a name (e-mail, phone, web address), or a company
    footer: at least half its lines registration, tax, bank, phone, address or disclaimer
    lines (``phrases.is_footer``)."""
    if len(block) > _FOOTER_LINES:
        return False
    if 2 <= len(block) <= 6 and _short_tail(block, 0, most=6):
        contacts = sum(1 for line in block[1:] if _CONTACT_RE.search(line))
        if contacts * 2 >= len(block) - 1:
            return True
    footers = sum(1 for line in block if phrases.is_footer(line) or _ADDRESS_OR_URL.search(line))
    return footers * 2 >= len(block)


_ADDRESS_OR_URL = re.compile(r"\S+@\S+\.\w+|https?://|www\.", re.I)


def _leading_blanks(lines: list[str]) -> int:
    return next((i for i, line in enumerate(lines) if line.strip()), len(lines))


def _short_tail(lines: list[str], start: int, *, most: int) -> bool:
    """From ``start`` on, at most ``most`` non-blank lines, all short: a name block."""
    filled = 0
    for index in range(start, len(lines)):
        line = lines[index]
        if line.strip():
            filled += 1
            if filled > most or len(line.strip()) > 60:
                return False
    return True


def _trimmed(lines: list[str]) -> list[str]:
    """Without leading/trailing blank lines and trailing rules ("-----", "_____")."""
    end = len(lines)
    while end and not lines[end - 1].strip(" -_="):
        end -= 1
    start = 0
    while start < end and not lines[start].strip():
        start += 1
    return lines[start:end]
