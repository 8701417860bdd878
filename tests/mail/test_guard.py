"""No mail loops, no floods: which mail gets no answer, and how many error replies may go out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from service.mail.extract import Reply, extract_reply
from service.mail.guard import ErrorReplyLimiter, LimitDecision, unanswerable

DOMAIN = "pbem.example"
NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


def ago(**delta: float) -> datetime:
    return NOW - timedelta(**delta)


# --- who is never answered ------------------------------------------------------------------


def test_a_person_may_be_answered() -> None:
    assert unanswerable(Reply("a1-a3", sender="ann@example.com"), DOMAIN) == ""


def test_machine_sent_mail_is_never_answered_for_the_reason_the_extractor_found() -> None:
    raw = (
        "From: Ann <ann@example.com>\nTo: play+x@pbem.example\nSubject: Out of office\n"
        "Auto-Submitted: auto-replied\n\nI am away until Monday.\n"
    )
    assert unanswerable(extract_reply(raw), DOMAIN) == "Auto-Submitted: auto-replied"


@pytest.mark.parametrize(
    "headers",
    ["Precedence: bulk\n", "X-Autoreply: yes\n", "Return-Path: <>\n", "List-Id: <games.x>\n"],
)
def test_bulk_mail_bounces_and_list_mail_are_never_answered(headers: str) -> None:
    raw = f"From: ann@example.com\nSubject: hi\n{headers}\nresign\n"
    assert unanswerable(extract_reply(raw), DOMAIN) != ""


@pytest.mark.parametrize(
    "sender",
    ["games@pbem.example", "play+abc@PBEM.example", "MAILER-DAEMON@pbem.example"],
)
def test_mail_from_our_own_domain_is_never_answered(sender: str) -> None:
    assert "own domain" in unanswerable(Reply("", sender=sender), DOMAIN)


@pytest.mark.parametrize(
    "sender",
    ["noreply@shop.example", "no-reply@x.example", "do-not-reply@x.example",
     "donotreply@x.example", "no_reply+123@x.example", "NoReply-alerts@x.example"],
)  # fmt: skip
def test_no_reply_senders_are_never_answered(sender: str) -> None:
    assert unanswerable(Reply("", sender=sender), DOMAIN) == "sent from a no-reply address"


@pytest.mark.parametrize("sender", ["", "ann", "@example.com"])
def test_mail_without_a_usable_sender_is_never_answered(sender: str) -> None:
    assert unanswerable(Reply("", sender=sender), DOMAIN) == "no sender address"


def test_a_sender_whose_name_only_contains_reply_may_be_answered() -> None:
    assert unanswerable(Reply("", sender="replyguy@example.com"), DOMAIN) == ""
    assert unanswerable(Reply("", sender="nora@pbem.example.org"), DOMAIN) == ""


# --- error reply limits ---------------------------------------------------------------------

LIMITER = ErrorReplyLimiter(per_hour=3, per_day=5)


def test_the_first_error_reply_is_allowed() -> None:
    assert LIMITER.decide([], NOW) == LimitDecision(True)


def test_error_replies_under_the_hourly_limit_are_allowed() -> None:
    assert LIMITER.decide([ago(minutes=5), ago(minutes=30)], NOW).allowed


def test_the_hourly_limit_refuses_until_the_oldest_reply_of_the_hour_has_aged_out() -> None:
    sent = [ago(minutes=50), ago(minutes=5), ago(minutes=30)]
    decision = LIMITER.decide(sent, NOW)
    assert decision == LimitDecision(
        False, "3 error replies in the last hour (limit 3)", ago(minutes=50) + timedelta(hours=1)
    )
    assert decision.retry_at is not None
    assert LIMITER.decide(sent, decision.retry_at).allowed
    assert not LIMITER.decide(sent, decision.retry_at - timedelta(seconds=1)).allowed


def test_replies_older_than_an_hour_count_only_for_the_day() -> None:
    sent = [ago(hours=2), ago(hours=3), ago(hours=4), ago(hours=5), ago(minutes=1)]
    decision = LIMITER.decide(sent, NOW)
    assert not decision.allowed
    assert decision.reason == "5 error replies in the last day (limit 5)"
    assert decision.retry_at == ago(hours=5) + timedelta(days=1)


def test_when_both_limits_bind_the_later_release_time_is_given() -> None:
    sent = [ago(hours=20), ago(hours=10), ago(minutes=40), ago(minutes=20), ago(minutes=10)]
    decision = LIMITER.decide(sent, NOW)
    assert decision.reason == (
        "3 error replies in the last hour (limit 3); 5 error replies in the last day (limit 5)"
    )
    assert decision.retry_at == ago(hours=20) + timedelta(days=1)
    assert decision.retry_at is not None
    assert LIMITER.decide(sent, decision.retry_at).allowed


def test_replies_older_than_a_day_never_count() -> None:
    sent = [ago(days=1), ago(days=2), *[ago(hours=25 + n) for n in range(10)]]
    assert LIMITER.decide(sent, NOW).allowed
    assert LIMITER.lookback == timedelta(days=1)


def test_send_times_in_the_future_count_as_recent() -> None:
    sent = [NOW + timedelta(minutes=n) for n in (1, 2, 3)]
    assert not LIMITER.decide(sent, NOW).allowed


def test_the_order_of_the_send_times_does_not_matter() -> None:
    sent = [ago(minutes=m) for m in (5, 50, 20, 59)]
    assert LIMITER.decide(sent, NOW) == LIMITER.decide(sorted(sent), NOW)
    assert LIMITER.decide(iter(sent), NOW) == LIMITER.decide(sent, NOW)


def test_the_defaults_allow_a_few_errors_an_hour() -> None:
    limiter = ErrorReplyLimiter()
    assert (limiter.per_hour, limiter.per_day) == (5, 20)
    assert limiter.decide([ago(minutes=m) for m in range(4)], NOW).allowed
    assert not limiter.decide([ago(minutes=m) for m in range(5)], NOW).allowed


@pytest.mark.parametrize(("per_hour", "per_day"), [(0, 5), (6, 5), (-1, 0)])
def test_limits_must_allow_something_and_the_day_must_hold_the_hour(
    per_hour: int, per_day: int
) -> None:
    with pytest.raises(ValueError, match="per_hour"):
        ErrorReplyLimiter(per_hour=per_hour, per_day=per_day)
