"""The offline extractor gives the chunks of one section one signature object, and each section its own."""

from __future__ import annotations

from chop_integrations._deciders import DocContext
from chop_integrations._offline import OfflineCNMExtractor
from chop_integrations._types import Chunk

TEXT = "# Setup\n\nInstall it.\n\nThen run it.\n\n# Usage\n\nCall it.\n"


def _chunk(part: str) -> Chunk:
    start = TEXT.index(part)
    return Chunk(text=part, start=start, end=start + len(part), token_count=3)


def test_one_object_per_section() -> None:
    extractor, doc = OfflineCNMExtractor(), DocContext(doc_id="d", text=TEXT)
    install, run, call = (extractor.extract(_chunk(p), doc, None) for p in ("Install it.", "Then run it.", "Call it."))
    assert install is run and install.nouns == ["Setup"]
    assert call is not install and call.nouns == ["Usage"]
