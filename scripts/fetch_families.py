"""Fetch the families of near-identical documents the ``family-*`` bench suites read: per-version release notes.

Each family is one project's release notes, one document per version, taken from the project's own source
archive or Debian's documentation package (other people's text, so never copied into this repository):

- ``django``: ``pip download django==5.0 --no-deps --no-binary :all:`` (the sdist); ``docs/releases/*.txt``;
- ``numpy``: ``pip download numpy==1.24.4 --no-deps --no-binary numpy`` (the sdist; pip prepares its metadata,
  which needs the build tools' wheels, not a compiler); ``doc/source/release/*-notes.rst``;
- ``pandas``: ``apt-get download python-pandas-doc`` (1.5.3, Debian's HTML docs, unpacked with ``dpkg-deb -x``,
  never installed); ``html/_sources/whatsnew/*.rst.txt`` (the reST sources of the "What's new" pages);
- ``pillow``: ``pip download pillow==10.4.0 --no-deps --no-binary :all:`` (the sdist); ``docs/releasenotes/*.rst``.

Every release note of the archive is unpacked into ``DEST/<family>/`` (their original file names) with an
``ORIGIN.json`` naming the archive and its SHA-256; the bench's builder (``chop_bench.eval.families``)
picks its fixed members from there. A family already unpacked is skipped.

``DEST`` is ``$CHOP_DOCS_DIR/families``, else ``.cache/docs/families`` in the checkout (ignored by git), the
folder the suites read (``--docs-dir`` names ``$CHOP_DOCS_DIR``'s stand-in).

Run: ``python scripts/fetch_families.py [django numpy pandas pillow]`` (needs pip, and apt-get and dpkg-deb for pandas).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: Family -> (how to fetch it, the folder inside the unpacked archive that holds its release notes).
FAMILIES: dict[str, tuple[list[str], str]] = {
    "django": (["pip", "django==5.0", "--no-binary", ":all:"], "Django-5.0/docs/releases"),
    "numpy": (["pip", "numpy==1.24.4", "--no-binary", "numpy"], "numpy-1.24.4/doc/source/release"),
    "pandas": (["apt", "python-pandas-doc"], "usr/share/doc/python-pandas-doc/html/_sources/whatsnew"),
    "pillow": (["pip", "pillow==10.4.0", "--no-binary", ":all:"], "pillow-10.4.0/docs/releasenotes"),
}


def families_dir() -> Path:
    """Where the families go: ``$CHOP_DOCS_DIR/families``, else ``.cache/docs/families`` in this checkout."""
    env = os.environ.get("CHOP_DOCS_DIR")
    root = Path(env) if env else Path(__file__).resolve().parents[1] / ".cache" / "docs"
    return root / "families"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _download(how: list[str], into: Path) -> Path:
    """Download the family's archive into ``into`` and return its path."""
    if how[0] == "pip":
        command = [sys.executable, "-m", "pip", "download", how[1], "--no-deps", *how[2:], "-d", str(into), "-q"]
        done = subprocess.run(command, capture_output=True, text=True)
        found = sorted(into.glob("*.tar.gz"))
    else:
        if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
            raise SystemExit("fetch_families: pandas needs apt-get and dpkg-deb (a Debian or Ubuntu machine)")
        done = subprocess.run(["apt-get", "download", how[1]], cwd=into, capture_output=True, text=True)
        found = sorted(into.glob(f"{how[1]}_*.deb"))
    if done.returncode != 0 or not found:
        raise SystemExit(f"fetch_families: {' '.join(how)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return found[-1]


def _unpack(archive: Path, inner: str, target: Path, scratch: Path) -> int:
    """Copy the files of ``inner`` in ``archive`` into ``target``; the number copied."""
    if archive.suffix == ".deb":
        subprocess.run(["dpkg-deb", "-x", str(archive), str(scratch)], check=True)
    else:
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.isfile() and m.name.startswith(inner + "/")]
            tar.extractall(scratch, members=members, filter="data")
    files = sorted(p for p in (scratch / inner).iterdir() if p.is_file())
    target.mkdir(parents=True)
    for path in files:
        shutil.copyfile(path, target / path.name)
    return len(files)


def fetch(dest: Path, families: list[str]) -> None:
    """Unpack each of ``families`` into ``dest/<family>/`` unless it is there already."""
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise SystemExit(f"fetch_families: unknown family {unknown[0]!r}: choose from {', '.join(FAMILIES)}")
    dest.mkdir(parents=True, exist_ok=True)
    for family in families:
        target = dest / family
        if target.is_dir():
            continue
        how, inner = FAMILIES[family]
        with tempfile.TemporaryDirectory() as tmp:
            archive = _download(how, Path(tmp))
            partial = dest / f".{family}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            count = _unpack(archive, inner, partial, Path(tmp) / "x")
            origin = {"fetched_with": " ".join(how), "archive": archive.name, "sha256": _sha256(archive)}
            (partial / "ORIGIN.json").write_text(json.dumps(origin, indent=1) + "\n", encoding="utf-8")
            partial.rename(target)
        print(f"fetch_families: {family}: {count} files -> {target}")


if __name__ == "__main__":
    fetch(families_dir(), sys.argv[1:] or list(FAMILIES))
