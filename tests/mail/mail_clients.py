"""Replies as thirty-odd real mail clients write them, around a notification of ours.

Each function takes the mail the service rendered (``RenderedEmail``) and the text a player
typed, and returns the raw message that client sends: its reply header ("attribution") in the
client's own words and shape, how it quotes (``>`` marks, an unquoted original under a header
block, an HTML ``blockquote``), its signature and boilerplate, its charset (UTF-8, GB18030,
KOI8-R, ISO-2022-JP, windows-1255) and transfer encoding (quoted-printable, base64, 8bit,
``format=flowed``). The shapes are taken from the clients' own source where it is public
(Thunderbird's ``composeMsgs.properties`` reply headers, FairEmail's
``EntityMessage.getReplyHeader``: ``<date> <time> <from>:``, QQ Mail's ``原始邮件`` block with
``发件人/发送时间/收件人/主题``, Mail.ru's ``<weekday>, <date>, <time> +03:00 от <from>:``,
Yandex's ``<dd.mm.yyyy>, <hh:mm>, "<name>" <addr>:``, Gmail's right-to-left attributions with
their directional marks) and from mail they are seen to send otherwise.

``CLIENTS`` maps a client's name to its function; ``tests/mail/reply_corpus.py`` wraps the
service's real notifications with them, and the property test of the reader uses them all.
"""

from __future__ import annotations

import base64
import quopri
import re
from collections.abc import Callable
from email.header import Header
from email.message import EmailMessage
from email.utils import make_msgid
from html import escape

from service.mail.extract import REPLY_MARKER
from service.mail.render import RenderedEmail
from tests.mail import scenarios

ADDRESS = scenarios.REPLY_TO
PLAYER = "Bob <bob@example.org>"
DATE = "Sat, 01 Mar 2025 18:03:11 +0100"

Client = Callable[[RenderedEmail, str], bytes]

# Directional marks as right-to-left Gmail writes them around names, addresses and the line.
RLE, LRE, PDF, RLM = "\u202b", "\u202a", "\u202c", "\u200f"


# -- building blocks ----------------------------------------------------------------------------


def quoted(text: str, prefix: str = "> ") -> str:
    """``text`` quoted line by line; empty lines get the bare mark, as clients write them."""
    return "\n".join((prefix + line) if line else prefix.rstrip() for line in text.splitlines())


def flowed(text: str, width: int = 76) -> str:
    """RFC 3676 ``format=flowed``: long lines soft-broken after a space (the space kept at the
    end of the line), quote marks repeated on each piece, unquoted lines starting with a space,
    ``>`` or ``From `` space-stuffed."""
    out: list[str] = []
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip(">"))
        marks, body = line[:depth], line[depth:]
        if depth:
            body = body[1:] if body.startswith(" ") else body
            head = marks + " "
        else:
            head = " " if body.startswith((" ", ">", "From ")) else ""
        while len(head) + len(body) > width and " " in body[: width - len(head)]:
            cut = body.rfind(" ", 0, width - len(head)) + 1
            out.append(head + body[:cut])
            body = body[cut:]
        out.append((head + body).rstrip() if not body.endswith(" ") else head + body)
    return "\n".join(out)


def _encoded(text: str, charset: str, *, crlf: bool) -> bytes:
    return (text.replace("\n", "\r\n") if crlf else text).encode(charset)


def _part(
    text: str, subtype: str, charset: str, encoding: str, *, flowed_text: bool = False
) -> tuple[list[str], bytes]:
    """A text part's headers and body bytes, encoded as the client encodes it (written out by
    hand: the stdlib would re-encode an 8bit KOI8-R body as base64)."""
    try:
        text.encode(charset)
    except UnicodeEncodeError:  # as clients do, the whole part goes out in UTF-8 instead
        charset = "utf-8"
    kind = f'text/{subtype}; charset="{charset}"'
    if flowed_text:
        kind += "; format=flowed" + ("; delsp=no" if encoding != "quoted-printable" else "")
    data = _encoded(text, charset, crlf=encoding == "base64")
    if encoding == "base64":
        body = base64.encodebytes(data)
    elif encoding == "quoted-printable":
        body = quopri.encodestring(data)
    else:  # 7bit / 8bit: the bytes as they are
        body = data
    return [f"Content-Type: {kind}", f"Content-Transfer-Encoding: {encoding}"], body


def message(
    text: str | None,
    *,
    html: str | None = None,
    charset: str = "utf-8",
    encoding: str = "quoted-printable",
    html_encoding: str | None = None,
    flowed_text: bool = False,
    headers: dict[str, str] | None = None,
    sender: str = PLAYER,
    subject: str = "Re: [pbem #17] Your turn",
) -> bytes:
    """The raw reply: headers, then a text part, an HTML part, or both as alternatives."""
    parts = []
    if text is not None:
        parts.append(_part(text, "plain", charset, encoding, flowed_text=flowed_text))
    if html is not None:
        parts.append(_part(html, "html", charset, html_encoding or encoding))
    top = [
        f"From: {sender}",
        f"To: {ADDRESS}",
        f"Subject: {Header(subject, 'utf-8').encode()}",
        f"Date: {DATE}",
        "Message-ID: <reply-17-4@example.org>",
        "In-Reply-To: <turn-17-4@pbem.example>",
        "MIME-Version: 1.0",
        *(f"{name}: {value}" for name, value in (headers or {}).items()),
    ]
    if len(parts) == 1:
        head, body = parts[0]
        raw = "\n".join([*top, *head]).encode() + b"\n\n" + body
    else:
        boundary = "----=_Part_17_4.1740848591"
        top.append(f'Content-Type: multipart/alternative; boundary="{boundary}"')
        raw = "\n".join(top).encode() + b"\n\n"
        for head, body in parts:
            raw += f"--{boundary}\n".encode() + "\n".join(head).encode() + b"\n\n" + body
            raw += b"\n"
        raw += f"--{boundary}--\n".encode()
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def html_lines(text: str) -> str:
    return "".join(f"<div>{escape(line) if line else '<br>'}</div>" for line in text.splitlines())


def html_original(mail: RenderedEmail) -> str:
    """The body of our HTML mail, as a client embeds it in its reply."""
    html = mail.html
    start = html.find("<body")
    start = html.find(">", start) + 1 if start >= 0 else 0
    end = html.rfind("</body>")
    return html[start : end if end >= 0 else len(html)]


def without_marker(mail: RenderedEmail) -> RenderedEmail:
    """Our mail as a client quotes it when the player selected only part of it (or the client
    dropped its first lines): the marker line is gone, the rest is as sent."""
    text = "\n".join(mail.text.splitlines()[2:])
    html = mail.html.replace(REPLY_MARKER, "", 1)
    return RenderedEmail(subject=mail.subject, text=text, html=html)


def marker_lost(client: Client) -> Client:
    return lambda mail, typed: client(without_marker(mail), typed)


def _subject(mail: RenderedEmail, prefix: str = "Re: ") -> str:
    return prefix + mail.subject


# -- phones -------------------------------------------------------------------------------------


def iphone_mail(mail: RenderedEmail, typed: str) -> bytes:
    """iOS Mail: its attribution is itself quoted, then a bare ">" line, then the quote."""
    body = (
        f"{typed}\n\nSent from my iPhone\n\n"
        f"> On 1 Mar 2025, at 17:00, pbem <{ADDRESS}> wrote:\n>\n{quoted(mail.text)}\n"
    )
    return message(body, subject=_subject(mail), headers={"X-Mailer": "iPhone Mail (22D72)"})


def gmail_android(mail: RenderedEmail, typed: str) -> bytes:
    attribution = f"On Sat, 1 Mar 2025, 17:00 pbem, <{ADDRESS}> wrote:"
    text = f"{typed}\n\n{attribution}\n\n{quoted(mail.text)}\n"
    html = (
        f'<div dir="auto">{escape(typed).replace(chr(10), "<br>")}</div><br>'
        f'<div class="gmail_quote"><div dir="ltr" class="gmail_attr">{escape(attribution)}'
        f'<br></div><blockquote class="gmail_quote" style="margin:0 0 0 .8ex;border-left:1px '
        f'#ccc solid;padding-left:1ex">{html_original(mail)}</blockquote></div>'
    )
    return message(text, html=html, encoding="base64", subject=_subject(mail))


def _outlook_mobile_header(mail: RenderedEmail) -> str:
    return (
        "________________________________\n"
        f"From: pbem <{ADDRESS}>\nSent: Saturday, March 1, 2025 5:00:04 PM\n"
        f"To: {PLAYER}\nSubject: {mail.subject}\n"
    )


def outlook_ios(mail: RenderedEmail, typed: str) -> bytes:
    """Outlook for iOS: the reply, its "Get Outlook" line, the header block, the original
    unquoted; a base64 HTML alternative with Outlook's reply container."""
    text = (
        f"{typed}\n\nGet Outlook for iOS<https://aka.ms/o0ukef>\n{_outlook_mobile_header(mail)}\n"
    )
    text += mail.text + "\n"
    html = (
        f'<html><body><div dir="auto">{html_lines(typed)}</div><div id="ms-outlook-mobile-'
        'signature"><div dir="auto">Get <a href="https://aka.ms/o0ukef">Outlook for iOS</a>'
        '</div></div><hr style="display:inline-block;width:98%" tabindex="-1"><div '
        'id="divRplyFwdMsg" dir="ltr"><b>From:</b> pbem &lt;' + ADDRESS + "&gt;<br><b>Sent:"
        "</b> Saturday, March 1, 2025 5:00:04 PM</div>" + html_original(mail) + "</body></html>"
    )
    return message(text, html=html, encoding="base64", subject=_subject(mail, "RE: "))


def outlook_android(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f"{typed}\n\nGet Outlook for Android<https://aka.ms/AAb9ysg>\n"
        f"{_outlook_mobile_header(mail)}\n{mail.text}\n"
    )
    return message(text, encoding="base64", subject=_subject(mail, "RE: "))


def samsung_email(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f"{typed}\n\n\n\nSent from my Galaxy\n\n\n-------- Original message --------\n"
        f"From: pbem <{ADDRESS}> \nDate: 01/03/2025 17:00 (GMT+01:00) \nTo: {PLAYER} \n"
        f"Subject: {mail.subject} \n\n{mail.text}\n"
    )
    return message(text, encoding="base64", subject=_subject(mail))


def yahoo_android(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f"{typed}\n\nSent from Yahoo Mail on Android\n \n  On Sat, Mar 1, 2025 at 17:00, pbem\n"
        f"<{ADDRESS}> wrote:   \n{quoted(mail.text)}\n"
    )
    return message(text, subject=_subject(mail))


def k9_mail(mail: RenderedEmail, typed: str) -> bytes:
    """K-9 Mail (Thunderbird for Android): the attribution with the sender's zone."""
    text = (
        f"{typed}\n\nOn March 1, 2025 5:00:04 PM GMT+01:00, pbem <{ADDRESS}> wrote:\n"
        f"{quoted(mail.text)}\n"
    )
    return message(flowed(text), flowed_text=True, encoding="8bit", subject=_subject(mail))


def fairemail(mail: RenderedEmail, typed: str) -> bytes:
    """FairEmail: ``date + " " + from + ":"`` above a blockquote (``getReplyHeader``)."""
    attribution = f"1 Mar 2025 17:00:04 pbem <{ADDRESS}>:"
    text = f"{typed}\n\n{attribution}\n\n{quoted(mail.text)}\n"
    html = (
        f'<!DOCTYPE html><html><body><p>{html_lines(typed)}</p><div fairemail="reply" '
        f'dir="ltr"><p>{escape(attribution)}</p></div><blockquote style="border-left:3px '
        f'solid #ccc;padding-left:12px">{html_original(mail)}</blockquote></body></html>'
    )
    return message(text, html=html, subject=_subject(mail), flowed_text=True)


def fairemail_utc(mail: RenderedEmail, typed: str) -> bytes:
    """FairEmail with "hide time zone": an ISO date in UTC and the bare address."""
    text = f"{typed}\n\n2025-03-01T16:00:04Z {ADDRESS}:\n\n{quoted(mail.text)}\n"
    return message(text, subject=_subject(mail))


# -- desktop and web clients ----------------------------------------------------------------------


def apple_mail_flowed(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f"{typed}\n\n> On 1 Mar 2025, at 17:00, pbem <{ADDRESS}> wrote:\n>\n{quoted(mail.text)}\n"
    )
    return message(flowed(text), flowed_text=True, subject=_subject(mail))


def thunderbird_zh(mail: RenderedEmail, typed: str) -> bytes:
    """Thunderbird in Chinese: "在 #2 #3, #1 写道:" (composeMsgs.properties, zh-CN)."""
    text = f"{typed}\n\n在 2025/3/1 17:00, pbem 写道:\n{quoted(mail.text)}\n"
    return message(flowed(text), flowed_text=True, encoding="base64", subject=_subject(mail))


def thunderbird_ko(mail: RenderedEmail, typed: str) -> bytes:
    """Thunderbird in Korean: "#2 #3에 #1 이(가) 쓴 글:"."""
    text = f"{typed}\n\n2025-03-01 오후 5:00에 pbem 이(가) 쓴 글:\n{quoted(mail.text)}\n"
    return message(flowed(text), flowed_text=True, subject=_subject(mail))


def thunderbird_ar(mail: RenderedEmail, typed: str) -> bytes:
    """Thunderbird in Arabic: "في #2 #3، كتب #1:"."""
    text = f"{typed}\n\nفي 01/03/2025 17:00، كتب pbem:\n{quoted(mail.text)}\n"
    return message(flowed(text), flowed_text=True, subject=_subject(mail))


def gmail_hebrew(mail: RenderedEmail, typed: str) -> bytes:
    """Gmail in Hebrew: the attribution wrapped in directional marks, name and address
    embedded left-to-right inside a right-to-left line."""
    attribution = (
        f"{RLE}בתאריך שבת, 1 במרץ 2025 ב-17:00 מאת {LRE}pbem{PDF}{RLM} "
        f"<{LRE}{ADDRESS}{PDF}{RLM}>:{PDF}"
    )
    text = f"{typed}\n\n{attribution}\n\n{quoted(mail.text)}\n"
    html = (
        f'<div dir="rtl">{html_lines(typed)}</div><br><div class="gmail_quote"><div dir="rtl" '
        f'class="gmail_attr">{escape(attribution)}<br></div><blockquote class="gmail_quote">'
        f"{html_original(mail)}</blockquote></div>"
    )
    return message(text, html=html, encoding="base64", subject=_subject(mail, "תגובה: "))


def gmail_arabic(mail: RenderedEmail, typed: str) -> bytes:
    attribution = (
        f"{RLE}في السبت، 1 مارس 2025 في 5:00 م تمت كتابة ما يلي بواسطة {LRE}pbem{PDF}{RLM} "
        f"<{LRE}{ADDRESS}{PDF}{RLM}>:{PDF}"
    )
    text = f"{typed}\n\n{attribution}\n\n{quoted(mail.text)}\n"
    return message(text, encoding="base64", subject=_subject(mail))


def outlook_hebrew(mail: RenderedEmail, typed: str) -> bytes:
    """Outlook in Hebrew, windows-1255: a header block in Hebrew, the original unquoted."""
    header = (
        "________________________________\n"
        f"מאת: pbem <{ADDRESS}>\nנשלח: שבת 01 מרץ 2025 17:00\nאל: Bob\nנושא: {mail.subject}\n"
    )
    text = f"{typed}\n\n{header}\n{mail.text}\n"
    return message(text, charset="windows-1255", subject=_subject(mail))


def gmail_japanese(mail: RenderedEmail, typed: str) -> bytes:
    """Gmail in Japanese: "<date> <time> <name> <address>:", no verb."""
    text = f"{typed}\n\n2025年3月1日(土) 17:00 pbem <{ADDRESS}>:\n\n{quoted(mail.text)}\n"
    return message(text, encoding="base64", subject=_subject(mail))


def becky_iso2022jp(mail: RenderedEmail, typed: str) -> bytes:
    """Becky! Internet Mail: ISO-2022-JP, 7bit, "On <RFC date>\\n<from> wrote:"."""
    text = (
        f"{typed}\n\nOn Sat, 01 Mar 2025 17:00:04 +0100\npbem <{ADDRESS}> wrote:\n"
        f"{quoted(mail.text)}\n"
    )
    return message(
        text,
        charset="iso-2022-jp",
        encoding="7bit",
        subject=_subject(mail),
        headers={"X-Mailer": "Becky! ver. 2.81.04"},
    )


def qq_mail(mail: RenderedEmail, typed: str) -> bytes:
    """QQ Mail: GB18030, base64; the 原始邮件 block, the original unquoted under it."""
    header = (
        "------------------ 原始邮件 ------------------\n"
        f'发件人: "pbem"<{ADDRESS}>;\n发送时间: 2025年3月1日(星期六) 下午5:00\n'
        f'收件人: "Bob"<bob@example.org>;\n\n主题: {mail.subject}\n'
    )
    text = f"{typed}\n\n\n\n{header}\n\n\n{mail.text}\n"
    html = (
        f'<div>{html_lines(typed)}</div><div><br></div><div style="font-size: 12px;font-family: '
        'Arial Narrow;padding:2px 0 2px 0;">------------------&nbsp;原始邮件&nbsp;'
        '------------------</div><div style="font-size: 12px;background:#efefef;padding:8px;">'
        f'<div><b>发件人:</b>&nbsp;"pbem"&lt;{ADDRESS}&gt;;</div><div><b>发送时间:</b>&nbsp;'
        '2025年3月1日(星期六) 下午5:00</div><div><b>收件人:</b>&nbsp;"Bob"&lt;bob@example.org'
        f"&gt;;</div><div></div><div><b>主题:</b>&nbsp;{escape(mail.subject)}</div></div>"
        f"<div><br></div>{html_original(mail)}"
    )
    return message(
        text,
        html=html,
        charset="gb18030",
        encoding="base64",
        subject=_subject(mail, "回复："),
        headers={"X-QQ-MIME": "TCMime 1.0 by Tencent"},
    )


def qq_mail_english(mail: RenderedEmail, typed: str) -> bytes:
    header = (
        "------------------ Original ------------------\n"
        f'From:  "pbem"<{ADDRESS}>;\nDate:  Sat, Mar 1, 2025 05:00 PM\n'
        f'To:  "Bob"<bob@example.org>;\n\nSubject:  {mail.subject}\n'
    )
    return message(f"{typed}\n\n{header}\n\n{mail.text}\n", encoding="base64")


def netease_163(mail: RenderedEmail, typed: str) -> bytes:
    """NetEase 163 Mail: GB18030, the original after an "At <date>, <from> wrote:" line."""
    text = (
        f'{typed}\n\n\n\n\n\n\n\n\n\n在 2025-03-01 17:00:04，"pbem" <{ADDRESS}> 写道：\n'
        f"{quoted(mail.text)}\n"
    )
    return message(text, charset="gb18030", encoding="base64", subject=_subject(mail, "Re:"))


def mail_ru(mail: RenderedEmail, typed: str) -> bytes:
    """Mail.ru: "<weekday>, <date>, <time> +03:00 от <from>:", the header itself quoted."""
    text = (
        f"{typed}\n\n--\nБоб\nОтправлено из Почты Mail ( https://trk.mail.ru/c/zzm979 )\n\n"
        f">\n> Суббота, 1 марта 2025, 19:00 +03:00 от pbem <{ADDRESS}>:\n>\n{quoted(mail.text)}\n"
    )
    return message(text, encoding="base64", subject=_subject(mail))


def mail_ru_web(mail: RenderedEmail, typed: str) -> bytes:
    """Mail.ru web, HTML only: the header in a div above a blockquote."""
    html = (
        f'<HTML><BODY><div>{html_lines(typed)}</div><div>&nbsp;</div><div class="mail-quote-'
        f'collapse">Суббота, 1 марта 2025, 19:00 +03:00 от pbem &lt;{ADDRESS}&gt;:<br>'
        '<blockquote style="border-left:1px solid #0857A6; margin:10px; padding:0 0 0 10px;">'
        f"{html_original(mail)}</blockquote></div></BODY></HTML>"
    )
    return message(None, html=html, encoding="base64", subject=_subject(mail))


def yandex(mail: RenderedEmail, typed: str) -> bytes:
    """Yandex Mail: "dd.mm.yyyy, hh:mm, "<name>" <address>:"."""
    text = (
        f"{typed}\n\n-- \nОтправлено из мобильного приложения Яндекс Почты\n\n"
        f'01.03.2025, 19:00, "pbem" <{ADDRESS}>:\n{quoted(mail.text)}\n'
    )
    html = (
        f"<div>{html_lines(typed)}</div><div>&nbsp;</div><div>-- <br>Отправлено из мобильного "
        'приложения Яндекс Почты</div><div>&nbsp;</div><div>01.03.2025, 19:00, "pbem" &lt;'
        f"{ADDRESS}&gt;:</div><blockquote>{html_original(mail)}</blockquote>"
    )
    return message(text, html=html, subject=_subject(mail))


def the_bat_koi8r(mail: RenderedEmail, typed: str) -> bytes:
    """The Bat! in Russian, KOI8-R 8bit: "Вы писали <date>, <time>:" and initials quoting."""
    text = (
        f"Здравствуйте, pbem.\n\n{typed}\n\n--\nС уважением,\n Боб                          "
        f"mailto:bob@example.org\n\nВы писали 1 марта 2025 г., 17:00:04:\n\n"
        f"{quoted(mail.text, 'p> ')}\n"
    )
    return message(
        text,
        charset="koi8-r",
        encoding="8bit",
        subject=_subject(mail),
        headers={"X-Mailer": "The Bat! (v10.4.5) Professional"},
    )


def outlook_de_corporate(mail: RenderedEmail, typed: str) -> bytes:
    """Outlook for Windows in German with a company signature and its legal footer."""
    text = (
        f"{typed}\n\nMit freundlichen Grüßen / Kind regards\n\nDr. Hans Berger\nLeiter "
        "Einkauf\n\nACME Industriewerke GmbH\nMusterstraße 12, 80331 München\nTel. +49 89 "
        "4711-0\nwww.acme-industrie.example\n\nSitz der Gesellschaft: München, Registergericht: "
        "Amtsgericht München HRB 01472653\nGeschäftsführer: Max Mustermann, Erika Musterfrau\n"
        "USt-IdNr.: DE 123456789\n\nDiese E-Mail enthält vertrauliche Informationen. Wenn Sie "
        "nicht der richtige Adressat sind, informieren Sie bitte sofort den Absender.\n\n"
        f"Von: pbem <{ADDRESS}>\nGesendet: Samstag, 1. März 2025 17:00\nAn: Berger, Hans "
        f"<bob@example.org>\nBetreff: {mail.subject}\n\n{mail.text}\n"
    )
    return message(text, charset="iso-8859-1", subject=_subject(mail, "AW: "))


def outlook_uk_corporate(mail: RenderedEmail, typed: str) -> bytes:
    """Outlook in English, a UK company footer: registration number, address, phone."""
    text = (
        f"{typed}\n\nKind regards,\nDana Whitfield | Procurement\nWhitfield & Sons Ltd\n"
        "T: +44 20 7946 0958 | M: 07700 900461\n14 Harbour Street, Leith, Edinburgh EH6 6QW\n\n"
        "Whitfield & Sons Ltd is registered in Scotland, company number SC01472653. "
        "Registered office: 14 Harbour Street, Edinburgh EH6 6QW. VAT no. GB 123 4567 89.\n"
        "This email and any attachments are confidential and intended solely for the "
        "addressee.\n\n________________________________\n"
        f"From: pbem <{ADDRESS}>\nSent: 01 March 2025 17:00\nTo: Dana Whitfield "
        f"<bob@example.org>\nSubject: {mail.subject}\n\n{mail.text}\n"
    )
    return message(text, subject=_subject(mail, "RE: "))


def ibm_notes(mail: RenderedEmail, typed: str) -> bytes:
    """HCL (IBM) Notes "Reply with History": "-----<from> wrote: -----" and a field block
    with tabs, the original unquoted; a disclaimer under the reply."""
    text = (
        f"{typed}\n\nMit freundlichen Grüßen\nHans Berger\n\nBeispiel AG, Vorstand: A. Muster; "
        "Aufsichtsrat: B. Muster; Sitz: Köln; Registergericht Köln HRB 0147265\n\n"
        f"-----pbem <{ADDRESS}> wrote: -----\nTo: Bob <bob@example.org>\nFrom: pbem "
        f"<{ADDRESS}>\nDate: 01.03.2025 17:00\nSubject: {mail.subject}\n\n{mail.text}\n"
    )
    return message(text, charset="iso-8859-1", headers={"X-Mailer": "IBM Notes Release 9.0.1"})


def zimbra(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f'{typed}\n\n----- Original Message -----\nFrom: "pbem" <{ADDRESS}>\nTo: "Bob" '
        "<bob@example.org>\nSent: Saturday, March 1, 2025 5:00:04 PM\nSubject: "
        f"{mail.subject}\n\n{mail.text}\n"
    )
    return message(text, headers={"X-Mailer": "Zimbra 9.0.0_GA_4583 (ZimbraWebClient)"})


def zimbra_de(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f'{typed}\n\n----- Ursprüngliche Mail -----\nVon: "pbem" <{ADDRESS}>\nAn: "Bob" '
        "<bob@example.org>\nGesendet: Samstag, 1. März 2025 17:00:04\nBetreff: "
        f"{mail.subject}\n\n{mail.text}\n"
    )
    return message(text, subject=_subject(mail, "AW: "))


def roundcube(mail: RenderedEmail, typed: str) -> bytes:
    text = f"{typed}\n\nAm 2025-03-01 17:00, schrieb pbem:\n{quoted(mail.text)}\n"
    return message(flowed(text), flowed_text=True, subject=_subject(mail))


def protonmail(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f"{typed}\n\nSent with Proton Mail secure email.\n\n------- Original Message -------\n"
        f"On Saturday, March 1st, 2025 at 17:00, pbem <{ADDRESS}> wrote:\n\n"
        f"{quoted(mail.text)}\n"
    )
    return message(text, encoding="base64", subject=_subject(mail))


def evolution(mail: RenderedEmail, typed: str) -> bytes:
    text = f"{typed}\n\nOn Sat, 2025-03-01 at 17:00 +0100, pbem wrote:\n{quoted(mail.text)}\n"
    return message(text, subject=_subject(mail))


def claws_mail(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f"{typed}\n\nOn Sat, 01 Mar 2025 17:00:04 +0100\npbem <{ADDRESS}> wrote:\n\n"
        f"{quoted(mail.text)}\n"
    )
    return message(text, encoding="8bit", subject=_subject(mail))


def horde(mail: RenderedEmail, typed: str) -> bytes:
    text = f"{typed}\n\nZitat von pbem <{ADDRESS}>:\n\n{quoted(mail.text)}\n"
    return message(flowed(text), flowed_text=True, subject=_subject(mail))


def sogo(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f'{typed}\n\nOn Saturday, March 01, 2025 17:00 CET, "pbem" <{ADDRESS}> wrote:\n \n'
        f"{quoted(mail.text)}\n"
    )
    return message(text, subject=_subject(mail))


def spark(mail: RenderedEmail, typed: str) -> bytes:
    text = (
        f"{typed}\n\nOn 1 Mar 2025 at 17:00 +0100, pbem <{ADDRESS}>, wrote:\n{quoted(mail.text)}\n"
    )
    return message(text, subject=_subject(mail))


def tutanota(mail: RenderedEmail, typed: str) -> bytes:
    """Tuta, HTML only: "<date>, <time> von <address>:" above a blockquote."""
    html = (
        f"<html><body><div>{html_lines(typed)}</div><div><br></div><div>1. März 2025, 17:00 "
        f'von {ADDRESS}:<br></div><blockquote class="tutanota_quote">{html_original(mail)}'
        "</blockquote></body></html>"
    )
    return message(None, html=html, subject=_subject(mail))


CLIENTS: dict[str, Client] = {
    "iPhone Mail": iphone_mail,
    "Gmail for Android": gmail_android,
    "Outlook for iOS": outlook_ios,
    "Outlook for Android": outlook_android,
    "Samsung Email": samsung_email,
    "Yahoo Mail for Android": yahoo_android,
    "K-9 Mail": k9_mail,
    "FairEmail": fairemail,
    "FairEmail, time zone hidden": fairemail_utc,
    "Apple Mail, flowed": apple_mail_flowed,
    "Thunderbird zh-CN": thunderbird_zh,
    "Thunderbird ko": thunderbird_ko,
    "Thunderbird ar": thunderbird_ar,
    "Gmail he": gmail_hebrew,
    "Gmail ar": gmail_arabic,
    "Outlook he, windows-1255": outlook_hebrew,
    "Gmail ja": gmail_japanese,
    "Becky!, ISO-2022-JP": becky_iso2022jp,
    "QQ Mail, GB18030": qq_mail,
    "QQ Mail en": qq_mail_english,
    "163 Mail, GB18030": netease_163,
    "Mail.ru app": mail_ru,
    "Mail.ru web, HTML only": mail_ru_web,
    "Yandex Mail": yandex,
    "The Bat!, KOI8-R": the_bat_koi8r,
    "Outlook de, company footer": outlook_de_corporate,
    "Outlook en, UK company footer": outlook_uk_corporate,
    "HCL Notes": ibm_notes,
    "Zimbra": zimbra,
    "Zimbra de": zimbra_de,
    "Roundcube de": roundcube,
    "Proton Mail": protonmail,
    "Evolution": evolution,
    "Claws Mail": claws_mail,
    "Horde": horde,
    "SOGo": sogo,
    "Spark": spark,
    "Tuta, HTML only": tutanota,
}
CLIENTS |= {f"{name}, marker lost": marker_lost(client) for name, client in list(CLIENTS.items())}
"""Every client, and every client quoting only part of our mail (its marker line lost)."""


def answering(client: Client, original: EmailMessage, typed: str, sender: str) -> bytes:
    """``client``'s reply to a mail the service really sent (an outbox row, parsed): to its
    Reply-To, from ``sender``, quoting its text and HTML."""
    text_part, html_part = original.get_body(("plain",)), original.get_body(("html",))
    assert isinstance(text_part, EmailMessage)
    html = html_part.get_content() if isinstance(html_part, EmailMessage) else ""
    mail = RenderedEmail(str(original["Subject"]), text_part.get_content(), html)
    raw = client(mail, typed)
    head, _, body = raw.partition(b"\r\n\r\n")
    head = re.sub(rb"(?m)^To: [^\r\n]*", b"To: " + str(original["Reply-To"]).encode(), head)
    head = re.sub(rb"(?m)^From: [^\r\n]*", b"From: " + sender.encode(), head)
    head = re.sub(rb"(?m)^Message-ID: [^\r\n]*", b"Message-ID: " + make_msgid().encode(), head)
    return head + b"\r\n\r\n" + body
