"""read_document: strict UTF-8, BOM allowed, clear one-line errors that name the file."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chop_integrations._cli.common import read_document, read_documents
from chop_integrations._errors import InputError


def test_reads_text_without_newline_translation(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes("Größe\r\nzweite Zeile\r\n".encode())
    document = read_document(path)
    assert document.text == "Größe\r\nzweite Zeile\r\n"
    assert document.doc_id == "crlf"
    assert document.metadata == {"source": "crlf.txt"}


def test_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfhello")
    assert read_document(path).text == "hello"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("latin1.txt", "Grüße aus Köln".encode("latin-1"), r"latin1\.txt: not valid UTF-8 \(byte 0xfc at offset 2\)"),
        ("binary.bin", b"PK\x03\x04\x00\x00binary", r"binary\.bin: looks binary \(contains NUL bytes\)"),
        ("utf16.txt", "hello".encode("utf-16"), r"utf16\.txt: looks binary"),
    ],
)
def test_undecodable_files_raise_input_error(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        read_document(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.txt: no such file"):
        read_document(tmp_path / "nope.txt")


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        read_document(tmp_path)


def test_read_documents_reports_each_failure_on_one_line(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("fine", encoding="utf-8")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    err = io.StringIO()
    documents, failed = read_documents([str(tmp_path / "missing.txt"), str(good), str(empty), str(tmp_path)], err=err)
    assert [d.doc_id for d in documents] == ["good"]
    assert failed == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 3
    assert "missing.txt: no such file" in lines[0]
    assert "empty.txt: empty file, no chunks" in lines[1] and "note" in lines[1]
    assert "is a directory" in lines[2]


def test_files_that_share_a_stem_get_docs_that_tell_them_apart(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for folder in ("a", "b"):
        (tmp_path / folder / "manual.txt").write_text("text", encoding="utf-8")
    (tmp_path / "a" / "manual.md").write_text("text", encoding="utf-8")
    (tmp_path / "other.txt").write_text("text", encoding="utf-8")
    paths = [str(tmp_path / p) for p in ("a/manual.txt", "b/manual.txt", "a/manual.md", "other.txt", "a/manual.txt")]
    documents, failed = read_documents(paths, err=io.StringIO())
    assert failed == 0
    docs = [d.doc_id for d in documents]
    assert len(set(docs)) == len(docs)  # every input has its own doc value
    assert docs[:4] == [*paths[:3], "other"]  # a unique stem stays the doc; shared stems become the path
    assert docs[4] == paths[0] + "#2"


@given(
    text=st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))), bom=st.booleans()
)
def test_any_utf8_text_reads_back_exactly(tmp_path_factory: pytest.TempPathFactory, text: str, bom: bool) -> None:
    path = tmp_path_factory.mktemp("prop") / "doc.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    if not bom and text.startswith("\ufeff"):
        text = text[1:]  # a leading U+FEFF is a BOM by definition
    assert read_document(path).text == text
