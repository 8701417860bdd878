"""Replies nobody could authenticate are held until their author confirms them.

A reply from one of the player's registered addresses that nothing vouched for either way
(no DKIM signature, no verdict for the From's domain: ``authentication.Doubt.confirmable``)
is not refused but held: the message stays stored, nothing is played, and one
``confirm_reply`` mail goes to that registered address with a fresh random code inside its
Reply-To (``addresses.make_confirm_address``) and inside a signed link. Whoever forged the
From never sees that mail, so a ``yes`` to it (signed or not) or the link's button proves
control of the mailbox; the held reply is then played by the gateway exactly as if it had
arrived authenticated (``gateway.confirm_held``).

An answer to a league invitation (``accept``/``decline``) is held the same way
(:func:`hold_league_answer`): its hold lapses when the league is no longer open for answers.

A hold expires with its turn; a newer held reply for the same game, player and turn (or
league and player) replaces the older; confirming twice plays once. The code is stored as
its SHA-256 only. The link's GET shows a page and changes nothing (mail scanners fetch
links); its POST confirms. A reply whose every line only reads (help, board, preview) is
answered at once instead: it changes nothing (``commands.READ_ONLY``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from service import i18n
from service.config import Settings
from service.i18n import Said
from service.mail.addresses import (
    LOCAL_PREFIX,
    AddressError,
    ConfirmToken,
    ReplyToken,
    make_confirm_address,
    read_any_address,
)
from service.mail.extract import Reply
from service.mail.models import (
    HELD,
    HOLDING,
    REJECTED,
    REPLACED,
    HeldReply,
    InboundMessage,
)
from service.models import Game, Player
from service.notify import play_url, queue_mail, reader_context

if TYPE_CHECKING:
    from service.leagues.models import League

CODE_LIMIT = 2**48
"""Codes are 48 random bits: they fit a reply address and cannot be guessed."""
HELD_LINES = 12
"""The confirmation mail quotes this many lines of the held reply at most."""

# yes in each language the mails are written in, as the confirmation mail asks for it
_YES = re.compile(
    r"(yes|y|yep|yeah|ok|okay|confirm|confirmed|play it|play"
    r"|ja|oui|sí|si|sì|sim|tak|да|bestätigt|bestätigen|confirmer|confirmo|confermo|bevestig)\b"
)


def new_code() -> int:
    return secrets.randbelow(CODE_LIMIT)


def code_hash(code: int) -> str:
    return hashlib.sha256(f"pbem held reply code {code}".encode()).hexdigest()


def code_fits(held: HeldReply, code: int) -> bool:
    return hmac.compare_digest(held.code_hash, code_hash(code))


def says_yes(text: str) -> bool:
    """Whether the first line typed says yes ("Yes", "yes please", "Confirm.", "OK!")."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return bool(_YES.match(first.lower().strip(" .!,")))


def link_url(settings: Settings, held: HeldReply, player_id: int, code: int) -> str:
    """The signed page that confirms ``held``: the local part of its confirmation address."""
    address = make_confirm_address(
        settings.secret(), settings.mail_domain, held.id, player_id, code
    )
    token = address.partition("@")[0].removeprefix(LOCAL_PREFIX)
    return f"{settings.public_url}/confirm/{token}"


def read_link(settings: Settings, token: str) -> ConfirmToken | None:
    """What a confirmation link names, or None for anything we did not sign."""
    if not token.isascii() or not token.isalnum() or len(token) > 64:
        return None
    address = f"{LOCAL_PREFIX}{token}@{settings.mail_domain}"
    try:
        found = read_any_address(settings.secret(), settings.mail_domain, address)
    except AddressError:
        return None
    return found if isinstance(found, ConfirmToken) else None


def hold(
    session: Session,
    settings: Settings,
    row: InboundMessage,
    reply: Reply,
    player: Player,
    game: Game,
    token: ReplyToken,
    why: str | Said,
) -> tuple[str, str]:
    """Keep ``row`` unplayed and ask ``reply.sender`` (a registered address of ``player``)
    to confirm it; returns the inbound status and result."""
    older = _replace_older(
        session,
        HeldReply.game_id == game.id,
        HeldReply.player_id == player.id,
        HeldReply.turn == token.turn,
    )
    held = HeldReply(game_id=game.id, turn=token.turn)
    context = {"turn": token.turn, "league": None}
    return _hold(session, settings, row, reply, player, held, older, context, game, why)


def hold_league_answer(
    session: Session,
    settings: Settings,
    row: InboundMessage,
    reply: Reply,
    player: Player,
    league: League,
    why: str | Said,
) -> tuple[str, str]:
    """Keep an answer to the invitation to ``league`` unanswered and ask the registered
    mailbox to confirm it, as :func:`hold` does for a move; the hold lapses when the league
    starts. The mail names the league, not a game or turn (game values None, as in every
    league mail)."""
    from service.leagues.mail import league_context

    older = _replace_older(
        session, HeldReply.league_id == league.id, HeldReply.player_id == player.id
    )
    held = HeldReply(league_id=league.id)
    context = {"turn": None, "league": league_context(session, league, i18n.locale_for(player))}
    return _hold(session, settings, row, reply, player, held, older, context, None, why)


def _hold(
    session: Session,
    settings: Settings,
    row: InboundMessage,
    reply: Reply,
    player: Player,
    held: HeldReply,
    older: list[HeldReply],
    context: dict[str, Any],
    game: Game | None,
    why: str | Said,
) -> tuple[str, str]:
    address = reply.sender.lower()
    code = new_code()
    held.inbound_id, held.player_id, held.address = row.id, player.id, address
    held.code_hash, held.state = code_hash(code), HOLDING
    session.add(held)
    session.flush()
    for earlier in older:
        earlier.outcome = f"replaced by held reply {held.id}"
        _close_inbound(session, earlier, f"held reply replaced by a newer one ({held.id})")
    context = {
        **context,
        "held": quoted_lines(reply.text),
        "why": why.in_(i18n.locale_for(player)) if isinstance(why, Said) else why,
        "confirm_url": link_url(settings, held, player.id, code),
        "replaced": bool(older),
    }
    reply_to = make_confirm_address(
        settings.secret(), settings.mail_domain, held.id, player.id, code
    )
    to, reader = answer_to(settings, player, address, game)
    queue_mail(
        session,
        kind="confirm_reply",
        to=to,
        game=game,
        context={**reader, **context},
        in_reply_to=reply.message_id or None,
        reply_to=reply_to,
    )
    replaced = f"; it replaces held reply {', '.join(str(e.id) for e in older)}" if older else ""
    return HELD, f"held until {address} confirms it (held reply {held.id}: {why!s}){replaced}"


def league_page(session: Session, held: HeldReply) -> dict[str, Any]:
    """What the confirm page shows of a held answer to a league invitation: the league, and
    why it can no longer be taken once the league started."""
    from service.leagues.leagues import OPEN
    from service.leagues.models import League

    league = session.get_one(League, held.league_id)
    done = "finished" if league.status == "finished" else "started"
    return {
        "league": {"id": league.id, "name": league.name},
        "expired": "" if league.status == OPEN else f"the league has {done}",
        "game_url": f"/leagues/{league.id}",
    }


def answer_to(
    settings: Settings, player: Player, address: str, game: Game | None = None
) -> tuple[Player | str, dict[str, Any]]:
    """Whom ``queue_mail`` writes to for an answer to ``player`` at ``address`` (one of their
    registered addresses), and the reader's values it cannot find itself: their name and
    signed settings and play links, never ones made up from the address."""
    if address.lower() == (player.address or "").lower():
        return player, {}
    values = reader_context(settings, player, address)
    if game is not None:
        seat = next((s.seat for s in game.seats if s.player_id == player.id), None)
        values["play_url"] = play_url(settings, game, player, seat)
    return address, values


def _replace_older(session: Session, *same: ColumnElement[bool]) -> list[HeldReply]:
    """The holds still waiting for the same game, player and turn (or league and player):
    a newer reply replaces them."""
    query = select(HeldReply).where(*same, HeldReply.state == HOLDING).with_for_update()
    older = list(session.scalars(query))
    for earlier in older:
        earlier.state = REPLACED
    return older


def _close_inbound(session: Session, held: HeldReply, why: str) -> None:
    row = session.get(InboundMessage, held.inbound_id)
    if row is not None and row.status == HELD:
        row.status, row.result = REJECTED, why


def quoted_lines(text: str) -> str:
    lines = [line.rstrip() for line in text.strip().splitlines()]
    kept = lines[:HELD_LINES]
    if len(lines) > HELD_LINES:
        kept.append(f"(and {len(lines) - HELD_LINES} more lines)")
    return "\n".join(kept) or "(nothing typed)"
