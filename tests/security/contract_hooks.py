"""Schemathesis hooks for ``test_api_contract.py`` (loaded by ``SCHEMATHESIS_HOOKS``).

The caller's token is ``PBEM_CONTRACT_TOKEN`` (none: the anonymous run). A generated
``POST /players/me/token`` replaces the caller's token, as it should; the provider then
sends the new one, so one request does not turn the rest of the run into 401s.
"""

from __future__ import annotations

import os
from typing import Any

import schemathesis

TOKEN = {"current": os.environ.get("PBEM_CONTRACT_TOKEN", "")}

if TOKEN["current"]:

    @schemathesis.auth(refresh_interval=None)
    class CurrentToken:
        def get(self, case: Any, ctx: Any) -> str:
            return TOKEN["current"]

        def set(self, case: Any, data: str, ctx: Any) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}

    @schemathesis.hook
    def after_call(context: Any, case: Any, response: Any) -> None:
        sent = (case.headers or {}).get("Authorization", "")
        rotated = case.method.upper() == "POST" and case.path == "/players/me/token"
        rotated = rotated and response.status_code == 200
        if rotated and sent == f"Bearer {TOKEN['current']}":
            TOKEN["current"] = response.json()["token"]
