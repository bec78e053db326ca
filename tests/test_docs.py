"""The documentation site builds, strictly, and the README stays a README.

``mkdocs build --strict`` fails on any warning: a page missing from the nav, a link to a page or an anchor that
does not exist. Running it here puts it in ``make test`` and so in CI (``.[dev]`` installs MkDocs). The block tests
of README.md and docs/*.md are in ``tests/test_readme.py``.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The most lines the README may have: what, why, install, the two commands, quick starts, links.
README_MAX_LINES = 400
#: Words of the project's own process that mean nothing to a user (its rounds, issues, review stops).
INTERNAL = re.compile(r"\bround \d|\bissues?\b|\bstop \d|the issue's", re.IGNORECASE)


def _nav_pages(nav: list[object]) -> set[str]:
    """Every page file named in MkDocs' ``nav`` (nested sections included)."""
    pages: set[str] = set()
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages |= _nav_pages(value) if isinstance(value, list) else {str(value)}
    return pages


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None,
    reason="mkdocs is not installed (it is in the dev extra: pip install -e '.[dev]')",
)
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    assert (site / "index.html").is_file()


def test_nav_lists_every_page() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = {p.name for p in DOCS.glob("*.md")}
    assert _nav_pages(config["nav"]) == pages


def test_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail into docs/"


@pytest.mark.parametrize(
    # Every page of the site, symlinks included: docs/changelog.md is CHANGELOG.md, which users read too.
    "page",
    [ROOT / "README.md", *sorted(DOCS.glob("*.md"))],
    ids=lambda p: p.name,
)
def test_no_project_internal_words(page: Path) -> None:
    hits = [line for line in page.read_text(encoding="utf-8").splitlines() if INTERNAL.search(line)]
    assert not hits, f"{page.name} speaks of the project's rounds or issues: {hits[:3]}"


def test_changelog_is_a_checked_page() -> None:
    """The changelog page is CHANGELOG.md itself, so the word check above reads the file users see."""
    page = DOCS / "changelog.md"
    assert page.resolve() == (ROOT / "CHANGELOG.md").resolve()
