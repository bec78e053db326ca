"""A folder read-only for every user, root included: what a non-root user meets, simulated where tests run as root.

Root passes every permission check, so a test that only ``chmod``\\s a folder checks nothing under CI
(which runs as root). :func:`read_only_folder` makes the folder read-only and also answers for it as the
kernel answers a non-root owner: ``os.access(..., W_OK)`` is False and creating a file there raises
``PermissionError``. Outside the folder nothing changes.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest


def _inside(path: object, folder: Path) -> bool:
    try:
        return Path(os.fsdecode(path)).absolute().is_relative_to(folder)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


@contextlib.contextmanager
def read_only_folder(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``folder``, made read-only (mode 0o500) for the block, as any user sees it."""
    folder = folder.absolute()
    folder.chmod(0o500)
    real_access, real_open = os.access, os.open

    def access(path: object, mode: int, *args: object, **kwargs: object) -> bool:
        if mode & os.W_OK and _inside(path, folder) and Path(os.fsdecode(path)).absolute() == folder:  # type: ignore[arg-type]
            return False
        return real_access(path, mode, *args, **kwargs)  # type: ignore[arg-type]

    def open_(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and _inside(path, folder):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))  # type: ignore[arg-type]
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(os, "access", access)
        patch.setattr(os, "open", open_)
        try:
            yield folder
        finally:
            folder.chmod(0o700)
