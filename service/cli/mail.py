"""``pbem mail ...``: see inbound mail the way the gateway reads it."""

from __future__ import annotations

import re
import sys

import click

from service.mail.extract import extract_reply, extract_text

# A raw message opens with header fields; a bare body (a .txt of what was typed) does not.
_HEADER_FIELD = re.compile(rb"^[A-Za-z0-9-]+:[ \t]", re.M)
_KNOWN_FIELDS = re.compile(
    rb"^(?:from|to|subject|date|message-id|received|return-path|mime-version|content-type):",
    re.I | re.M,
)


def looks_like_message(raw: bytes) -> bool:
    """Whether ``raw`` starts with an RFC 5322 header block naming a usual field."""
    head = raw.lstrip().replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    return bool(_HEADER_FIELD.match(head) and _KNOWN_FIELDS.search(head))


@click.group("mail")
def mail_group() -> None:
    """Inbound mail."""


@mail_group.command("extract")
@click.argument("source", metavar="FILE", type=click.File("rb"))
@click.option("--html", is_flag=True, help="FILE is an HTML body, not a message.")
def extract_command(source: click.utils.LazyFile, html: bool) -> None:
    """Print the reply typed in FILE (a raw .eml message or a bare body; - for stdin).

    For a message, the facts the gateway routes on come first, then a blank line and the
    typed text. Exit status 1 when nothing typed was found, with the reason on stderr.
    """
    raw = source.read()
    if html or not looks_like_message(raw):
        text = extract_text(raw.decode("utf-8", errors="replace"), html=html)
        problem = "" if text else "nothing typed above the quoted text"
    else:
        reply = extract_reply(raw)
        facts = {
            "From": reply.sender,
            "Subject": reply.subject,
            "Message-ID": reply.message_id,
            "In-Reply-To": reply.in_reply_to,
            "Automated": reply.automated,
        }
        for name, value in facts.items():
            if value:
                click.echo(f"{name}: {value}")
        click.echo()
        text, problem = reply.text, reply.problem
    if text:
        click.echo(text)
    if problem:
        click.echo(f"no reply: {problem}", err=True)
        sys.exit(1)
