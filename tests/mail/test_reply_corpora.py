"""The extractor on the four outside reply corpora: the matched counts may rise, never fall.

Figures are from ``python3 bench/reply_corpus.py`` (which also measures the libraries we
compared); the rule for a match, and the fair comparison with talon's signature-keeping rows,
are in that file's docstring.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.outside import SHARED

CORPORA = SHARED / "corpora"
BENCH = Path(__file__).resolve().parents[2] / "bench" / "reply_corpus.py"
pytestmark = pytest.mark.outside_material("corpora/email-replies")

# corpus: (matched at least, rows with an expected reply)
FLOORS = {
    "github-email_reply_parser": (8, 9),
    "zapier-email-reply-parser": (5, 5),
    "crisp-email-reply-parser": (49, 49),
    "mailgun-talon": (28, 29),
}


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reply_corpus", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


bench = load_bench()


def test_bench_reads_the_same_corpora() -> None:
    assert (CORPORA / "email-replies").is_dir()
    assert bench.CORPORA == CORPORA / "email-replies"
    assert set(FLOORS) == set(bench.CORPUS_NAMES)


@pytest.mark.parametrize("corpus", FLOORS)
def test_matched_count_does_not_fall(corpus: str) -> None:
    matched, total, missed = bench.score(bench.ours, corpus)
    floor, rows = FLOORS[corpus]
    assert total == rows
    assert matched >= floor, f"{corpus}: {matched} / {total}, missed {missed}"
