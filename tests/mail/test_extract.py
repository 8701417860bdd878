"""Reading what a player typed: our notification's board and example moves are never the move.

Each client test builds the raw mail the way that client quotes our notification, from a real
board drawn by ``engine.notation.frame``.
"""

from __future__ import annotations

import base64
import email
import email.policy

import pytest
from click.testing import CliRunner

from engine.notation import frame
from service.cli import main
from service.mail.extract import READING, REPLY_MARKER, Reply, extract_reply, extract_text
from service.mail.typography import normalised
from tests.mail.mail_clients import CLIENTS
from tests.mail.reply_corpus import moment_mail, moments

FILES = "abcdefghijklmn"
BOARD = frame(
    [["B"] * 14, ["B"] * 14, *[["."] * 14] * 8, ["W"] * 14, ["W"] * 14],
    list(FILES),
    [str(rank) for rank in range(12, 0, -1)],
)
NOTIFICATION = f"""{REPLY_MARKER}

Game 17, Epaminondas, move 23: your turn, Ann (White).

{BOARD}

Reply with your move on the first line, for example:
  a1-a3      moves the phalanx on a1 two squares up
  a1-a3 b2-b4
Sealed orders in other games look like: 1:ne 2:xn
"""
EXAMPLES = ("a1-a3", "1:ne", "2:xn", "| 12", "+---")
ATTRIBUTION = "On Mon, 3 Mar 2025 at 10:02, PBEM <games@pbem.example> wrote:"
HEADERS = (
    "From: Ann Example <Ann@Example.com>\n"
    "To: games@pbem.example\n"
    "Subject: Re: Game 17: your move\n"
    "Message-ID: <reply-1@example.com>\n"
    "In-Reply-To: <game-17-move-23@pbem.example>\n"
    "References: <game-17-move-22@pbem.example> <game-17-move-23@pbem.example>\n"
    "Date: Mon, 3 Mar 2025 10:05:00 +0000\n"
    "MIME-Version: 1.0\n"
)


def quoted(text: str) -> str:
    return "\n".join(f"> {line}".rstrip() for line in text.splitlines())


def plain_mail(body: str, *, charset: str = "utf-8", headers: str = HEADERS) -> bytes:
    return (
        f"{headers}Content-Type: text/plain; charset={charset}\nContent-Transfer-Encoding: 8bit\n\n"
    ).encode("ascii") + body.encode(charset)


def html_mail(html: str) -> bytes:
    return plain_mail(html).replace(b"text/plain", b"text/html")


def alternative(plain: str, html: str) -> bytes:
    return (
        f'{HEADERS}Content-Type: multipart/alternative; boundary="alt"\n\n'
        "--alt\nContent-Type: text/plain; charset=utf-8\n\n"
        f"{plain}\n"
        "--alt\nContent-Type: text/html; charset=utf-8\n\n"
        f"{html}\n"
        "--alt--\n"
    ).encode()


def assert_move_only(reply: Reply, move: str = "b2-b4") -> None:
    assert reply.text == move
    for example in EXAMPLES:
        assert example not in reply.text


# --- our notification quoted by each client ------------------------------------------------


def test_gmail_top_post_with_html_alternative() -> None:
    plain = f"b2-b4\n\n{ATTRIBUTION}\n\n{quoted(NOTIFICATION)}\n"
    html = (
        '<div dir="ltr">b2-b4</div><br><div class="gmail_quote"><div dir="ltr" '
        f'class="gmail_attr">{ATTRIBUTION}<br></div><blockquote class="gmail_quote">'
        f"<pre>{NOTIFICATION}</pre></blockquote></div>"
    )
    assert_move_only(extract_reply(alternative(plain, html)))


def test_gmail_html_only() -> None:
    html = (
        '<div dir="ltr">b2-b4<br></div><br><div class="gmail_quote"><div class="gmail_attr">'
        f'{ATTRIBUTION}<br></div><blockquote class="gmail_quote"><pre>{NOTIFICATION}</pre>'
        "</blockquote></div>"
    )
    assert_move_only(extract_reply(html_mail(html)))


def test_outlook_desktop_appends_the_original_unquoted_below_a_header_block() -> None:
    body = (
        "b2-b4\n\n________________________________\n"
        "From: PBEM <games@pbem.example>\nSent: Monday, March 3, 2025 10:02 AM\n"
        "To: Ann Example <ann@example.com>\nSubject: Game 17: your move\n\n"
        f"{NOTIFICATION}"
    )
    assert_move_only(extract_reply(plain_mail(body)))


def test_outlook_original_message_separator() -> None:
    body = f"b2-b4\n\n-----Original Message-----\nFrom: PBEM\nSent: today\n\n{NOTIFICATION}"
    assert_move_only(extract_reply(plain_mail(body)))


def test_outlook_header_block_in_german_with_split_from_line() -> None:
    body = (
        "b2-b4\n\nVon: PBEM\n<games@pbem.example>\nGesendet: Montag, 3. März 2025 10:02\n"
        f"An: Ann\nBetreff: Game 17\n\n{NOTIFICATION}"
    )
    assert_move_only(extract_reply(plain_mail(body)))


def test_outlook_web_html_only() -> None:
    html = (
        '<div style="font-family:Calibri">b2-b4</div><div id="appendonsend"></div>'
        '<hr style="display:inline-block;width:98%" tabindex="-1">'
        '<div id="divRplyFwdMsg" dir="ltr"><b>From:</b> PBEM &lt;games@pbem.example&gt;<br>'
        "<b>Sent:</b> Monday, March 3, 2025 10:02<br><b>To:</b> Ann<br>"
        "<b>Subject:</b> Game 17</div>"
        f"<div><pre>{NOTIFICATION}</pre></div>"
    )
    assert_move_only(extract_reply(html_mail(html)))


def test_outlook_desktop_html_word_markup() -> None:
    html = (
        "<html><head><style>p.MsoNormal {margin:0}</style></head><body>"
        '<div class="WordSection1"><p class="MsoNormal">b2-b4<o:p></o:p></p>'
        '<div style="border:none;border-top:solid #E1E1E1 1.0pt">'
        '<p class="MsoNormal"><b>From:</b> PBEM &lt;games@pbem.example&gt;<br>'
        "<b>Sent:</b> Monday, March 3, 2025 10:02 AM<br><b>To:</b> Ann<br>"
        "<b>Subject:</b> Game 17</p></div>"
        f"<pre>{NOTIFICATION}</pre></div></body></html>"
    )
    assert_move_only(extract_reply(html_mail(html)))


def test_apple_mail_quotes_its_own_attribution_and_adds_sent_from() -> None:
    body = (
        "b2-b4\n\nSent from my iPhone\n\n"
        f"> On 3 Mar 2025, at 10:02, PBEM <games@pbem.example> wrote:\n>\n{quoted(NOTIFICATION)}"
    )
    assert_move_only(extract_reply(plain_mail(body)))


def test_thunderbird_bottom_post_below_the_quoted_notification() -> None:
    body = f"On 03/03/2025 10:02, PBEM wrote:\n{quoted(NOTIFICATION)}\n\nb2-b4\n\n-- \nAnn\n"
    assert_move_only(extract_reply(plain_mail(body)))


def test_move_typed_inside_the_quoted_notification() -> None:
    lines = quoted(NOTIFICATION).splitlines()
    body = "\n".join([ATTRIBUTION, *lines[:4], "", "b2-b4", "", *lines[4:]])
    assert_move_only(extract_reply(plain_mail(body)))


def test_phone_client_with_original_message_header_and_signature() -> None:
    body = (
        "b2-b4\n\nSent from my Galaxy\n\n\n-------- Original message --------\n"
        "From: PBEM <games@pbem.example>\nDate: 03/03/2025 10:02 (GMT+00:00)\n"
        f"To: ann@example.com\nSubject: Game 17\n\n{NOTIFICATION}"
    )
    assert_move_only(extract_reply(plain_mail(body)))


def test_marker_alone_cuts_an_original_appended_without_any_header() -> None:
    assert_move_only(extract_reply(plain_mail(f"b2-b4\n\n{NOTIFICATION}")))


@pytest.mark.parametrize(
    "marker",
    [
        "-- Reply above this line --",
        "##- Please type your reply above this line -##",
        "REPLY ABOVE THIS LINE",
    ],
)
def test_marker_in_any_decoration(marker: str) -> None:
    notification = NOTIFICATION.replace(REPLY_MARKER, marker)
    assert_move_only(extract_reply(plain_mail(f"b2-b4\n{notification}")))


def test_quoted_notification_without_marker_is_still_dropped() -> None:
    notification = NOTIFICATION.replace(REPLY_MARKER, "")
    body = f"b2-b4\n\n{ATTRIBUTION}\n{quoted(notification)}"
    assert_move_only(extract_reply(plain_mail(body)))


def test_board_line_is_a_last_fence_when_marker_and_headers_are_gone() -> None:
    """No marker, no header, no quoting: the reply still ends before the board's paragraph."""
    notification = NOTIFICATION.replace(REPLY_MARKER, "").replace(
        "Game 17, Epaminondas, move 23: your turn, Ann (White).", ""
    )
    assert_move_only(extract_reply(plain_mail(f"b2-b4\n{notification}")))


def test_quoted_board_line_rewrapped_by_the_client_is_not_typed() -> None:
    body = f"{ATTRIBUTION}\n> ## Reply ABOVE this line ##\n>  12 | B B B B B B B\n| 12\n>\n\nb2-b4"
    assert_move_only(extract_reply(plain_mail(body)))


def test_nothing_typed_above_an_unquoted_notification_is_an_empty_reply() -> None:
    reply = extract_reply(plain_mail(f"\n\n{NOTIFICATION}"))
    assert reply.text == ""
    assert reply.problem == "nothing typed above the quoted text"


# --- generic reading ------------------------------------------------------------------------


def test_several_typed_lines_and_a_closing_name_block() -> None:
    body = f"Good game so far!\nb2-b4\n\nThanks,\nAnn\n\n{ATTRIBUTION}\n{quoted(NOTIFICATION)}"
    assert extract_reply(plain_mail(body)).text == "Good game so far!\nb2-b4"


def test_numeric_orders_are_not_taken_for_a_phone_number_signature() -> None:
    assert extract_text("Hi,\n\nmy orders:\n3-4 5-6 1-2") == "Hi,\n\nmy orders:\n3-4 5-6 1-2"


def test_a_first_line_starting_with_on_is_not_a_quote_header() -> None:
    text = "On second thought I resign.\n\nOn Mon, 3 Mar 2025, Bob <b@x.org> wrote:\n> hi"
    assert extract_text(text) == "On second thought I resign."


def test_prose_beginning_like_a_phone_signature_is_kept() -> None:
    text = "b2-b4\n\nSent from my desk, much easier than my phone."
    assert extract_text(text) == text


def test_split_attribution_in_french() -> None:
    text = "b2-b4\n\nLe lun. 3 mars 2025 à 10:02, PBEM <games@pbem.example>\na écrit :\n\n> hi"
    assert extract_text(text) == "b2-b4"


def test_html_body_entry_point() -> None:
    html = "<p>b2-b4</p><blockquote>a1-a3</blockquote>"
    assert extract_text(html, html=True) == "b2-b4"


# --- MIME -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("charset", "typed"),
    [
        ("iso-8859-1", "Très bien, à toi : b2-b4"),
        ("windows-1252", "“Fine” – b2-b4 for €5"),
        ("koi8-r", "Мой ход: b2-b4"),
    ],
)
def test_non_utf8_charsets(charset: str, typed: str) -> None:
    """Decoded right, then in the one typography every game reads (curly quotes and the
    dash straightened, ``typography.py``)."""
    assert extract_reply(plain_mail(typed, charset=charset)).text == normalised(typed)


def test_mislabelled_charset_falls_back_to_windows_1252() -> None:
    raw = plain_mail("Très bien", charset="latin-1").replace(b"latin-1", b"utf-8")
    assert extract_reply(raw).text == "Très bien"


def test_unknown_charset_name_still_reads() -> None:
    raw = plain_mail("b2-b4").replace(b"charset=utf-8", b"charset=x-no-such-charset")
    assert extract_reply(raw).text == "b2-b4"


def test_quoted_printable() -> None:
    raw = (
        f"{HEADERS}Content-Type: text/plain; charset=iso-8859-1\n"
        "Content-Transfer-Encoding: quoted-printable\n\n"
        "Tr=E8s bien, voici un tr=E8s long coup qui est coup=E9 par le client de mes=\n"
        "sagerie : b2-b4\n\n"
        f"{ATTRIBUTION}\n> a1-a3\n"
    ).encode("ascii")
    assert extract_reply(raw).text == (
        "Très bien, voici un très long coup qui est coupé par le client de messagerie : b2-b4"
    )


def test_base64() -> None:
    body = base64.encodebytes(f"b2-b4\n\n{ATTRIBUTION}\n{quoted(NOTIFICATION)}".encode()).decode()
    raw = (
        f"{HEADERS}Content-Type: text/plain; charset=utf-8\n"
        f"Content-Transfer-Encoding: base64\n\n{body}"
    ).encode("ascii")
    assert_move_only(extract_reply(raw))


def test_routing_facts() -> None:
    headers = HEADERS.replace("Subject: Re: Game 17: your move", "Subject: =?utf-8?q?R=C3=A9p?=")
    reply = extract_reply(plain_mail("b2-b4", headers=headers))
    assert reply.sender == "ann@example.com"
    assert reply.subject == "Rép"
    assert reply.message_id == "<reply-1@example.com>"
    assert reply.in_reply_to == "<game-17-move-23@pbem.example>"
    assert reply.references == ("<game-17-move-22@pbem.example>", "<game-17-move-23@pbem.example>")
    assert not reply.is_automated
    assert reply.problem == ""


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ("Auto-Submitted: auto-replied", "Auto-Submitted: auto-replied"),
        ("Precedence: bulk", "Precedence: bulk"),
        ("X-Autoreply: yes", "X-Autoreply header present"),
        ("Return-Path: <>", "Return-Path: <> (a bounce)"),
        ("List-Id: <games.lists.example>", "mailing-list headers (List-Id/List-Unsubscribe)"),
    ],
)
def test_automated_mail_is_flagged_from_headers(header: str, reason: str) -> None:
    reply = extract_reply(plain_mail("I am out of office.", headers=f"{header}\n{HEADERS}"))
    assert reply.automated == reason
    assert reply.is_automated


def test_auto_submitted_no_is_a_person() -> None:
    reply = extract_reply(plain_mail("b2-b4", headers=f"Auto-Submitted: no\n{HEADERS}"))
    assert not reply.is_automated


def test_delivery_report_is_flagged() -> None:
    raw = (
        b"From: Mail Delivery System <MAILER-DAEMON@mx.example>\n"
        b'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\n\n'
        b"--b\nContent-Type: text/plain\n\nDelivery failed.\n"
        b"--b\nContent-Type: message/delivery-status\n\nStatus: 5.1.1\n--b--\n"
    )
    reply = extract_reply(raw)
    assert reply.automated == "multipart/report (a delivery or read report)"
    assert reply.text == "Delivery failed."


# --- garbage never raises -------------------------------------------------------------------


@pytest.mark.parametrize("raw", [b"", b"   \n", ""])
def test_empty_message(raw: bytes | str) -> None:
    assert extract_reply(raw) == Reply("", problem="empty message")


def test_binary_garbage_returns_a_reason_or_text() -> None:
    reply = extract_reply(bytes(range(256)) * 40)
    assert isinstance(reply.text, str)


def test_no_text_part() -> None:
    raw = (
        f'{HEADERS}Content-Type: multipart/mixed; boundary="m"\n\n'
        "--m\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n--m--\n"
    ).encode()
    reply = extract_reply(raw)
    assert (reply.text, reply.problem) == ("", "no text part")
    assert reply.sender == "ann@example.com"


@pytest.mark.parametrize(
    "content_type",
    ["multipart/mixed", 'multipart/mixed; boundary="never-used"', "text/plain; charset="],
)
def test_broken_mime(content_type: str) -> None:
    raw = f"{HEADERS}Content-Type: {content_type}\n\nb2-b4\n".encode()
    reply = extract_reply(raw)
    assert reply.text in ("", "b2-b4")
    assert reply.text or reply.problem


def test_broken_base64_does_not_raise() -> None:
    raw = (
        f"{HEADERS}Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n@@not base64!!\n"
    ).encode()
    assert isinstance(extract_reply(raw), Reply)


def test_ten_megabyte_attachment_is_skipped() -> None:
    blob = base64.encodebytes(b"\0" * 10_000_000).decode()
    raw = (
        f'{HEADERS}Content-Type: multipart/mixed; boundary="m"\n\n'
        "--m\nContent-Type: text/plain; charset=utf-8\n\nb2-b4\n"
        "--m\nContent-Type: application/octet-stream\nContent-Disposition: attachment\n"
        f"Content-Transfer-Encoding: base64\n\n{blob}--m--\n"
    ).encode()
    assert extract_reply(raw).text == "b2-b4"


def test_huge_text_body_is_read_only_in_part_without_breaking_its_charset() -> None:
    reply = extract_reply(plain_mail("Très bien: b2-b4\n" + "é" * 79 + "\n" * 200_000))
    assert reply.text.startswith("Très bien: b2-b4\n")
    assert len(reply.text) < 1_000_000


def test_pathological_quote_runs_are_read() -> None:
    text = "b2-b4\n" + ("> " * 5000 + "x\n") * 200 + "On " * 20000
    assert extract_text(text).startswith("b2-b4")


# --- pbem mail extract ------------------------------------------------------------------------


def test_cli_prints_the_facts_then_the_typed_reply() -> None:
    raw = plain_mail(f"b2-b4\n\n{ATTRIBUTION}\n{quoted(NOTIFICATION)}")
    result = CliRunner().invoke(main, ["mail", "extract", "-"], input=raw)
    assert result.exit_code == 0
    assert "From: ann@example.com\n" in result.output
    assert result.output.endswith("\n\nb2-b4\n")


def test_cli_reads_a_bare_body_and_says_when_nothing_was_typed() -> None:
    assert CliRunner().invoke(main, ["mail", "extract", "-"], input=b"b2-b4\n").output == "b2-b4\n"
    result = CliRunner().invoke(main, ["mail", "extract", "-"], input=quoted(NOTIFICATION))
    assert result.exit_code == 1


# --- quote headers as real clients write them (issue 20, finding 3) --------------------------

HEADER_CLIENTS = sorted(name for name in CLIENTS if not name.endswith("marker lost"))


@pytest.mark.parametrize("client", HEADER_CLIENTS)
def test_every_clients_quote_header_ends_the_reply_when_our_marker_is_lost(client: str) -> None:
    """Thirty-odd clients' reply headers in their own words and shapes (Thunderbird's in
    Chinese, Korean, Arabic; Gmail's right-to-left ones with directional marks; FairEmail's
    and Yandex's ``<date> <time> <address>:``; Mail.ru's; QQ Mail's 原始邮件 block; Zimbra's
    framed separator; IBM Notes' field block), quoting only part of our mail (no marker line):
    the reply is what was typed, no header line and no line of our mail with it."""
    moment = moments()["elasta Black reminder"]
    typed = moment.position.action
    text = extract_reply(CLIENTS[f"{client}, marker lost"](moment_mail(moment), typed)).text
    greeting = "Здравствуйте, pbem.\n\n" if client.startswith("The Bat!") else ""
    assert text == greeting + typed  # (at 925e682, 16 of these 38 kept header lines)


@pytest.mark.parametrize(
    "header",
    [
        "1 Mar 2025 17:00:04 pbem <play@pbem.example>:",  # FairEmail
        "2025-03-01T16:00:04Z play@pbem.example:",  # FairEmail, time zone hidden
        '01.03.2025, 19:00, "pbem" <play@pbem.example>:',  # Yandex
        "Суббота, 1 марта 2025, 19:00 +03:00 от pbem <play@pbem.example>:",  # Mail.ru
        "2025年3月1日(土) 17:00 pbem <play@pbem.example>:",  # Gmail ja
        "1. März 2025, 17:00 von play@pbem.example:",  # Tuta
        "在 2025/3/1 17:00, pbem 写道:",  # Thunderbird zh-CN
        "2025-03-01 오후 5:00에 pbem 이(가) 쓴 글:",  # Thunderbird ko
        "في 01/03/2025 17:00، كتب pbem:",  # Thunderbird ar
        "\u202bבתאריך שבת, 1 במרץ 2025 ב-17:00 מאת \u202apbem\u202c\u200f "
        "<\u202aplay@pbem.example\u202c\u200f>:\u202c",  # Gmail he
        "pbem 写道:",  # Thunderbird zh-CN, "author wrote" only
    ],
)
def test_a_quote_header_is_found_by_its_shape_in_any_language(header: str) -> None:
    """Structure, not a list of languages: a line ending in a colon with a date and a time,
    or a date and an address, or (right above a quote) a short line with no move in it."""
    body = f"d1-d4\n\n{header}\n> Your turn, Bob: Epaminondas #17\n> For example: a1-a3\n"
    assert extract_text(body) == "d1-d4"
    unquoted = f"d1-d4\n\n{header}\nYour turn, Bob: Epaminondas #17\na1-a3 is fine too\n"
    if "写道" in header and "2025" not in header:
        return  # no date, no quote mark: nothing tells it from a line of the reply
    assert extract_text(unquoted) == "d1-d4"


def test_a_move_right_above_a_header_is_never_taken_into_it() -> None:
    """Mail.ru's header has no "On": the header is whole by its date and time, so the line
    above it (the move) is not read as the header's first half."""
    body = "DA@a2\nСуббота, 1 марта 2025, 19:00 +03:00 от pbem <play@pbem.example>:\n> Your turn\n"
    assert extract_text(body) == "DA@a2"


@pytest.mark.parametrize(
    "separator",
    ["----- Ursprüngliche Mail -----", "------------------ 原始邮件 ------------------"],
)
def test_a_framed_separator_ends_the_reply_in_any_language(separator: str) -> None:
    body = f"02471563\n\n{separator}\nVon: pbem\n\n01234567 is an example\n"
    assert extract_text(body) == "02471563"


def test_a_header_block_in_any_language_ends_the_reply() -> None:
    """Outlook in Hebrew: "Field: value" lines, one with an address, one with a date."""
    body = (
        "A:a10 B:d7 C:l5 D:j5 E:j1\nתודה\n\n"
        "מאת: pbem <play@pbem.example>\nנשלח: שבת 01 מרץ 2025 17:00\nאל: Bob\nנושא: Your turn\n\n"
        "A:a1 B:b2 C:c3 D:d4 E:e5\n"
    )
    assert extract_text(body) == "A:a10 B:d7 C:l5 D:j5 E:j1"  # "thanks" is a closing


def test_orders_with_letter_labels_are_no_header_block_nel_17() -> None:
    """Nelaxtam's X troops are letters ("a:ne"): three such lines are orders, not fields."""
    assert extract_text("a:ne\nb:xn\nc:hold\n") == "a:ne\nb:xn\nc:hold"


# --- company footers (issue 20, finding 4) ---------------------------------------------------


@pytest.mark.parametrize(
    "client", ["Outlook de, company footer", "Outlook en, UK company footer", "HCL Notes"]
)
def test_a_company_signature_and_footer_are_cut_below_the_orders_ela_13(client: str) -> None:
    """The closing, the name, the address, phone, registration and tax numbers and the
    disclaimer are a signature, not the reply (its registration number is valid orders)."""
    moment = moments()["elasta White turn_resolved"]
    reply = extract_reply(CLIENTS[client](moment_mail(moment), "02471563"))
    assert reply.text == "02471563"
    assert any("HRB" in line or "company number" in line for line in reply.signature)


def test_a_header_parsed_once_reads_as_one_parsed_afresh() -> None:
    """Issue 23: the reading policy keeps each parsed header value for the next ask; every
    header of every client's mail reads as ``email.policy.default`` reads it, twice over."""
    mail = moment_mail(next(iter(moments().values())))
    for client in CLIENTS.values():
        raw = client(mail, "a1-a3")
        for _ in range(2):
            kept = email.message_from_bytes(raw, policy=READING)
            fresh = email.message_from_bytes(raw, policy=email.policy.default)
            for mine, theirs in zip(kept.walk(), fresh.walk(), strict=True):
                assert [
                    (n, str(v), [t.__name__ for t in type(v).__mro__], getattr(v, "defects", ()))
                    for n, v in mine.items()
                ] == [
                    (n, str(v), [t.__name__ for t in type(v).__mro__], getattr(v, "defects", ()))
                    for n, v in theirs.items()
                ]
                assert mine.get_params() == theirs.get_params()
        assert extract_reply(raw) == extract_reply(raw)
