"""Reply addresses: only what we issued is read back, whatever mail systems do to the case."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.mail.addresses import (
    LEAGUE_PURPOSE,
    LEAGUE_VERSION,
    MAX_NUMBER,
    PURPOSE,
    TAG_BYTES,
    VERSION,
    AddressError,
    LeagueToken,
    ReplyToken,
    _tag,
    make_league_address,
    make_reply_address,
    read_any_address,
    read_reply_address,
)

SECRET = b"current server secret"
OLD_SECRET = b"last year's secret"
DOMAIN = "pbem.example"


def address(game: int = 17, player: int = 4, turn: int = 23, secret: bytes = SECRET) -> str:
    return make_reply_address(secret, DOMAIN, game, player, turn)


def token_of(reply_address: str) -> str:
    return reply_address.split("@")[0].removeprefix("play+")


def with_token(token: str) -> str:
    return f"play+{token}@{DOMAIN}"


def encode(blob: bytes) -> str:
    return base64.b32encode(blob).decode().rstrip("=").lower()


def decode(token: str) -> bytes:
    return base64.b32decode(token.upper() + "=" * (-len(token) % 8))


def forged(reply_address: str, **kwargs: list[bytes]) -> bool:
    with pytest.raises(AddressError) as caught:
        read_reply_address(SECRET, DOMAIN, reply_address, **kwargs)
    assert caught.value.code == "forged"
    assert str(caught.value) == "this address was not issued by us"
    return True


# --- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "player", "turn"),
    [(17, 4, 23), (0, 0, 0), (1, 2, 3), (123_456, 54_321, 250), (MAX_NUMBER - 1,) * 3],
)
def test_an_issued_address_reads_back_as_its_game_player_and_turn(
    game: int, player: int, turn: int
) -> None:
    issued = address(game, player, turn)
    assert read_reply_address(SECRET, DOMAIN, issued) == ReplyToken(game, player, turn)


@given(
    st.integers(0, MAX_NUMBER - 1), st.integers(0, MAX_NUMBER - 1), st.integers(0, MAX_NUMBER - 1)
)
def test_every_address_round_trips_and_fits_the_local_part_limit(
    game: int, player: int, turn: int
) -> None:
    issued = address(game, player, turn)
    local, domain = issued.split("@")
    assert len(local) <= 64
    assert re.fullmatch("play\\+[a-z2-7]+", local) and domain == DOMAIN
    assert read_reply_address(SECRET, DOMAIN, issued) == ReplyToken(game, player, turn)


def test_typical_addresses_are_short() -> None:
    assert len(address(123_456, 54_321, 250).split("@")[0]) <= 40


def test_each_turn_has_its_own_address_so_an_outdated_reply_is_recognised() -> None:
    assert address(turn=23) != address(turn=24)
    assert read_reply_address(SECRET, DOMAIN, address(turn=23)).turn == 23


@pytest.mark.parametrize("bad", [-1, MAX_NUMBER])
def test_numbers_outside_the_documented_range_are_refused_when_making(bad: int) -> None:
    with pytest.raises(ValueError, match=r"2\*\*48"):
        address(game=bad)


# --- what mail systems do to addresses ------------------------------------------------------


@pytest.mark.parametrize(
    "rewrite",
    [
        str.upper,
        lambda a: a.split("@")[0].upper() + "@" + a.split("@")[1],
        lambda a: a.replace(DOMAIN, "PBEM.Example."),
        lambda a: f"Ann Example <{a}>",
        lambda a: f"  <{a}>  ",
    ],
    ids=["all-upper", "upper-local-part", "domain-case-and-root-dot", "display-name", "brackets"],
)
def test_case_changes_and_address_decoration_still_read(rewrite: Callable[[str], str]) -> None:
    assert read_reply_address(SECRET, DOMAIN, rewrite(address())) == ReplyToken(17, 4, 23)


def test_a_string_secret_is_the_same_key_as_its_utf8_bytes() -> None:
    issued = make_reply_address("clé", DOMAIN, 1, 2, 3)
    assert read_reply_address("clé".encode(), DOMAIN, issued) == ReplyToken(1, 2, 3)


# --- forgery and tampering ------------------------------------------------------------------


def test_any_changed_character_of_the_token_is_refused() -> None:
    token = token_of(address())
    for index, char in enumerate(token):
        changed = "a" if char != "a" else "b"
        assert forged(with_token(token[:index] + changed + token[index + 1 :]))


def test_any_flipped_bit_is_refused() -> None:
    blob = decode(token_of(address()))
    for bit in range(len(blob) * 8):
        flipped = bytearray(blob)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert forged(with_token(encode(bytes(flipped))))


def test_another_games_token_cannot_be_spliced_onto_this_games_numbers() -> None:
    mine, theirs = decode(token_of(address(game=17))), decode(token_of(address(game=18)))
    spliced = theirs[:-TAG_BYTES] + mine[-TAG_BYTES:]
    assert forged(with_token(encode(spliced)))


def test_a_token_signed_with_another_key_is_refused() -> None:
    assert forged(address(secret=b"someone else's guess"))


@pytest.mark.parametrize(
    "cut", [lambda t: t[:-1], lambda t: t[:-8], lambda t: t[:10], lambda t: t[:1], lambda t: ""]
)
def test_a_truncated_token_is_refused(cut: Callable[[str], str]) -> None:
    assert forged(with_token(cut(token_of(address()))))


@pytest.mark.parametrize("token", ["aaaa!aaaa", "0189aaaa", "ßaaaaaaa", "aaaa aaaa", "a=b"])
def test_text_that_is_not_base32_is_refused(token: str) -> None:
    assert forged(with_token(token))


def test_an_authentic_tag_over_an_unknown_format_is_refused() -> None:
    for payload in (bytes([2, 17, 4, 23]), bytes([1, 17, 4]), bytes([1, 17, 4, 23, 5])):
        assert forged(with_token(encode(payload + _tag(SECRET, payload))))


# --- not ours at all ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "foreign",
    [
        address().replace(DOMAIN, "evil.example"),
        address().replace(DOMAIN, "mail.pbem.example"),
        address().replace(DOMAIN, "pbem.example.evil.example"),
        token_of(address()),
        "",
    ],
)
def test_another_domain_is_refused_as_not_ours(foreign: str) -> None:
    with pytest.raises(AddressError) as caught:
        read_reply_address(SECRET, DOMAIN, foreign)
    assert (caught.value.code, str(caught.value)) == ("domain", "not our domain")


@pytest.mark.parametrize("unknown", [f"games@{DOMAIN}", f"play@{DOMAIN}", f"plays+x@{DOMAIN}"])
def test_our_domain_without_a_reply_token_is_an_unknown_address(unknown: str) -> None:
    with pytest.raises(AddressError) as caught:
        read_reply_address(SECRET, DOMAIN, unknown)
    assert caught.value.code == "unknown"
    assert "not one of our reply addresses" in str(caught.value)


# --- key rotation ---------------------------------------------------------------------------


def test_addresses_signed_with_an_old_key_read_while_it_is_listed() -> None:
    old = address(secret=OLD_SECRET)
    assert read_reply_address(SECRET, DOMAIN, old, old_secrets=[OLD_SECRET]) == ReplyToken(
        17, 4, 23
    )
    assert forged(old)


def test_the_current_key_still_reads_when_old_keys_are_listed() -> None:
    new = address()
    assert read_reply_address(SECRET, DOMAIN, new, old_secrets=[OLD_SECRET, b"x"]).turn == 23


# --- league invitation addresses: a second purpose --------------------------------------------


def test_a_league_address_reads_back_as_its_league_and_player() -> None:
    league = make_league_address(SECRET, DOMAIN, 3, 4)
    assert league.startswith("play+") and league != address(3, 4, 0)
    assert read_any_address(SECRET, DOMAIN, league.upper()) == LeagueToken(3, 4)
    old = make_league_address(OLD_SECRET, DOMAIN, 3, 4)
    assert read_any_address(SECRET, DOMAIN, old, old_secrets=[OLD_SECRET]) == LeagueToken(3, 4)


def test_game_addresses_still_read_as_game_tokens_through_either_reader() -> None:
    assert read_any_address(SECRET, DOMAIN, address()) == ReplyToken(17, 4, 23)
    assert read_reply_address(SECRET, DOMAIN, address()) == ReplyToken(17, 4, 23)


def test_a_league_address_is_no_game_address() -> None:
    assert forged(make_league_address(SECRET, DOMAIN, 17, 4))


def test_a_payload_signed_for_one_purpose_never_reads_as_the_other() -> None:
    """Re-labelling a payload's version byte, or reusing a tag made for the other purpose,
    gives nothing: the purpose label is inside the tag."""
    game_payload = bytes([VERSION, 17, 4, 23])
    league_payload = bytes([LEAGUE_VERSION, 17, 4])
    crossed = [
        league_payload + _tag(SECRET, league_payload, PURPOSE),  # league shape, game tag
        game_payload + _tag(SECRET, game_payload, LEAGUE_PURPOSE),  # game shape, league tag
        bytes([LEAGUE_VERSION, 17, 4, 23]) + _tag(SECRET, game_payload, PURPOSE),
        bytes([VERSION, 17, 4]) + _tag(SECRET, league_payload, LEAGUE_PURPOSE),
        bytes([VERSION, 17, 4]) + _tag(SECRET, bytes([VERSION, 17, 4]), LEAGUE_PURPOSE),
    ]
    for blob in crossed:
        with pytest.raises(AddressError) as caught:
            read_any_address(SECRET, DOMAIN, with_token(encode(blob)))
        assert caught.value.code == "forged"
        assert forged(with_token(encode(blob)))


def test_a_league_address_signed_with_another_key_or_changed_is_refused() -> None:
    other = make_league_address(b"someone else's key", DOMAIN, 3, 4)
    token = token_of(make_league_address(SECRET, DOMAIN, 3, 4))
    changed = token[:-1] + ("a" if token[-1] != "a" else "b")
    for bad in (other, with_token(changed)):
        with pytest.raises(AddressError) as caught:
            read_any_address(SECRET, DOMAIN, bad)
        assert caught.value.code == "forged"
