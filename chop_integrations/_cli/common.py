"""What the command line's modules share: exit codes and reading input files."""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .._errors import InputError
from .output import PROG, doc_names

EXIT_OK, EXIT_FAILED_INPUT, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141
#: A run stopped at its limit of LLM calls or tokens (``--max-calls``, ``--max-llm-tokens``); nothing was written.
EXIT_BUDGET = 3


@dataclass(frozen=True)
class Document:
    """One input file, read and decoded.

    Attributes:
        path: The path as given on the command line.
        text: The decoded text (a UTF-8 byte order mark removed); offsets refer to it.
        doc: The ``doc`` value of its chunks (see :func:`doc_names`); the stem when empty.
    """

    path: Path
    text: str
    doc: str = ""

    @property
    def doc_id(self) -> str:
        """The ``doc`` value of its chunks: the file's stem, or its path where stems repeat."""
        return self.doc or self.path.stem

    @property
    def metadata(self) -> dict[str, Any]:
        """Hints for the engines: the file name as ``source``, as a LangChain loader gives it.

        No ``title``: a stem is not a title (``SM-G973F_UM_EU_Eng``, ``galaxy-s10-user-manual``), and a title outranks
        the document's own; the file name is read as the adapters read it (see :mod:`.._offline.naming`).
        """
        return {"source": self.path.name}


def read_document(path: str | os.PathLike[str]) -> Document:
    """Read one file as strict UTF-8 (a byte order mark is allowed and dropped).

    The bytes are decoded without newline translation, so chunk offsets index
    the file's text exactly as stored.

    Raises:
        InputError: When the file is missing, a directory, unreadable, binary
            (contains NUL bytes) or not valid UTF-8; the message names the file.
    """
    file = Path(path)
    if not file.exists():
        raise InputError(f"{file}: no such file")
    if file.is_dir():
        raise InputError(f"{file}: is a directory; pass the files inside it (e.g. {file}/*.txt)")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(f"{file}: cannot be read ({exc.strerror or exc})") from exc
    if b"\x00" in data:
        raise InputError(f"{file}: looks binary (contains NUL bytes); only UTF-8 text files can be chunked")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise InputError(
            f"{file}: not valid UTF-8 (byte 0x{bad} at offset {exc.start}); "
            f"convert it first, e.g. iconv -f latin1 -t utf-8 {file}"
        ) from exc
    return Document(path=file, text=text)


def read_documents(paths: Sequence[str], *, err: IO[str]) -> tuple[list[Document], int]:
    """Read every path, reporting each failure on one line of ``err``.

    Returns:
        The readable, non-empty documents (in the order given) and the number of failed files.
    """
    documents: list[Document] = []
    failed = 0
    for path in paths:
        try:
            document = read_document(path)
        except InputError as exc:
            print(f"{PROG}: error: {exc}", file=err)
            failed += 1
            continue
        if not document.text:
            print(f"{PROG}: note: {document.path}: empty file, no chunks", file=err)
            continue
        documents.append(document)
    names = doc_names([d.path for d in documents])
    return [dataclasses.replace(d, doc=name) for d, name in zip(documents, names, strict=True)], failed


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number
