"""Fetch the real documents some tests and the multilingual bench read: Debian packages, unpacked, never installed.

The documents are other people's text (licences, changelogs, manuals in German and Chinese), so they are not
copied into this repository: this script downloads each package from Debian's archive with ``apt-get download``
and unpacks it with ``dpkg-deb -x`` into ``DEST/<package>/`` (the package's own file tree), without installing
it or its dependencies. A package already unpacked there is skipped.

``DEST`` is ``$CHOP_DOCS_DIR``, else ``.cache/docs`` in the checkout (ignored by git). CI runs this before the
tests; on another machine a test that needs a document skips and names this command.

Run: ``python scripts/fetch_docs.py`` (needs ``apt-get`` and ``dpkg-deb``; refreshes apt's lists once when a
package is not found and the user is root).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: The packages and what each is for. Versions are Debian's current ones; tests name the files they read.
PACKAGES: dict[str, str] = {
    "python3-urllib3": "urllib3's CHANGES.rst (usr/share/doc/python3-urllib3/changelog.gz)",
    "rustc": "Rust's RELEASES.md (usr/share/doc/rustc/changelog.gz)",
    "debian-reference-de": "the Debian Reference in German, plain text",
    "debian-reference-zh-cn": "the Debian Reference in Chinese, plain text",
    "maint-guide-de": "the Debian New Maintainers' Guide in German, plain text",
    "maint-guide-zh-cn": "the Debian New Maintainers' Guide in Chinese, plain text",
    "debian-faq-de": "the Debian FAQ in German, plain text",
    "debian-faq-zh-cn": "the Debian FAQ in Chinese, plain text",
}


def docs_dir() -> Path:
    """Where the unpacked packages go: ``$CHOP_DOCS_DIR``, else ``.cache/docs`` beside this script's checkout."""
    env = os.environ.get("CHOP_DOCS_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / ".cache" / "docs"


def _download(package: str, into: Path) -> Path:
    """Download one package's ``.deb`` into ``into``; refresh apt's lists once (as root) if it is not found."""
    for attempt in range(2):
        done = subprocess.run(["apt-get", "download", package], cwd=into, capture_output=True, text=True)
        debs = sorted(into.glob(f"{package}_*.deb"))
        if done.returncode == 0 and debs:
            return debs[-1]
        if attempt == 0 and os.geteuid() == 0:
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True, check=False)
    raise SystemExit(f"fetch_docs: apt-get download {package} failed: {done.stderr.strip().splitlines()[-1:]}")


def fetch(dest: Path, packages: list[str]) -> None:
    """Unpack each of ``packages`` into ``dest/<package>/`` unless it is there already."""
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise SystemExit("fetch_docs: needs apt-get and dpkg-deb (a Debian or Ubuntu machine)")
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for package in packages:
            target = dest / package
            if target.is_dir():
                continue
            deb = _download(package, Path(tmp))
            partial = dest / f".{package}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            subprocess.run(["dpkg-deb", "-x", str(deb), str(partial)], check=True)
            partial.rename(target)
            print(f"fetch_docs: {package} -> {target}")


if __name__ == "__main__":
    fetch(docs_dir(), sys.argv[1:] or list(PACKAGES))
