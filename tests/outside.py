"""Outside test material: ``../shared`` beside the checkout (see ``../shared/corpora/README.md``).

Nobody in this project wrote it and it is not in the repository, so a clone on its own does not
have it. A test that reads it carries ``@pytest.mark.outside_material("corpora/...")``: where
the path is missing the test is skipped with a one-line reason, so the suite passes in any clone;
with ``PBEM_REQUIRE_OUTSIDE_MATERIAL=1`` (CI, which has it) the same test fails instead, so the
material can never go quietly untested.
"""

from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
REQUIRE = "PBEM_REQUIRE_OUTSIDE_MATERIAL"


def missing(relative: str) -> str | None:
    """Why a test reading ``../shared/<relative>`` cannot run here, or None when it can."""
    if (SHARED / relative).exists():
        return None
    return f"needs ../shared/{relative} (outside test material) beside the checkout"


def required() -> bool:
    return os.environ.get(REQUIRE, "") not in ("", "0")
