"""Packaging glue pyproject.toml cannot express: the mail templates, kept at the repository root
(``email_templates/``, next to the code that renders them), ship inside the package as
``service/mail/email_templates/`` so that a non-editable install (``pip install .``) has them.
Everything else is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TEMPLATES = Path(__file__).resolve().parent / "email_templates"


class BuildWithMailTemplates(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "service" / "mail" / "email_templates"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(TEMPLATES, target)


setup(cmdclass={"build_py": BuildWithMailTemplates})
