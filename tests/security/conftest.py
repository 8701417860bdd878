"""The security regression suite uses the service fixtures."""

from tests.service.conftest import *  # noqa: F403
