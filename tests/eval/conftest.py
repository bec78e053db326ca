"""Fixtures for the benchmark tests: a tiny corpus written by the tests themselves (no shared data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SECTIONS = {
    "battery": "Charge the battery\nConnect the charger to the device and to a power outlet. It takes two hours.\n",
    "wifi": "Connect to Wi-Fi\nOpen Settings, tap Connections, then Wi-Fi, and choose a network from the list.\n",
    "camera": "Take a picture\nOpen the Camera app, frame the subject and tap the shutter button to capture.\n",
}


def write_corpus(root: Path) -> Path:
    """Two near-identical 'manuals' (only the cover differs), sections.jsonl and queries.jsonl."""
    (root / "manuals").mkdir(parents=True)
    sections, queries = [], []
    for model in ("Phone_Alpha", "Phone_Beta"):
        text = f"ACME\n{model.replace('_', ' ')}\nUser Manual\n\n"
        for key, body in SECTIONS.items():
            start = len(text)
            text += body + "\n"
            sections.append(
                {
                    "manual": model,
                    "section": key,
                    "title": body.split("\n")[0],
                    "start": start,
                    "end": start + len(body.rstrip("\n")),
                }
            )
            queries.append(
                {
                    "qid": f"{model}-{key}",
                    "query": f"{body.split(chr(10))[0]} on the {model.replace('_', ' ')}",
                    "manual": model,
                    "section": key,
                    "start": start,
                    "end": start + len(body.rstrip("\n")),
                }
            )
        (root / "manuals" / f"{model}.txt").write_text(text, encoding="utf-8")
    (root / "sections.jsonl").write_text("".join(json.dumps(s) + "\n" for s in sections), encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    return root


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")
