"""Text taken from mail, made fit to store and to quote back.

Hostile or broken mail carries NUL (sent as is, or made by decoding a charset) and lone
surrogates (Python's mail parser makes them of bytes it cannot decode). PostgreSQL's text and
JSON columns refuse the first and UTF-8 cannot encode the second, so either one in a stored
field fails the whole transaction at commit. Every string the gateway takes from a message
passes here first: NUL is dropped, a lone surrogate becomes U+FFFD.
"""

from __future__ import annotations

import dataclasses
import re

from service.mail.extract import Reply

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` without NUL, each lone surrogate replaced by U+FFFD.

    >>> storable("board\\r\\nhi\\x00there\\udce9")
    'board\\r\\nhithere\\ufffd'
    """
    return _LONE_SURROGATE.sub("\ufffd", text.replace("\x00", ""))


def clean_reply(reply: Reply) -> Reply:
    """``reply`` with every string in it :func:`storable`."""
    changes: dict[str, object] = {}
    for field in dataclasses.fields(reply):
        value = getattr(reply, field.name)
        if isinstance(value, str):
            changes[field.name] = storable(value)
        elif isinstance(value, tuple):
            changes[field.name] = tuple(storable(v) if isinstance(v, str) else v for v in value)
    return dataclasses.replace(reply, **changes)  # type: ignore[arg-type]
