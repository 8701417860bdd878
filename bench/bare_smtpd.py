"""A bare aiosmtpd server that accepts every message and keeps nothing: the ceiling of the
inbound benchmark, and the mail sink of the storm (the service's sender talks SMTP to it).

``python3 bench/bare_smtpd.py PORT`` serves until stopped, printing ``listening`` when ready.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from aiosmtpd.controller import Controller


class Accept:
    def __init__(self) -> None:
        self.count = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.count += 1
        return "250 2.0.0 OK"


def main() -> None:
    controller = Controller(Accept(), hostname="127.0.0.1", port=int(sys.argv[1]))
    controller.start()
    print("listening", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
