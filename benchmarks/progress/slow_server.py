"""The local OpenAI-compatible test server, answering every call slowly (for the progress captures).

Run ``python benchmarks/progress/slow_server.py PORT [MIN_S MAX_S]``: each chat request waits a
deterministic 0.2-1 s (from a hash of the request) before the test server's usual answer, with ``usage``.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from typing import Any

from tests.support.openai_server import OpenAITestServer, default_responder


def slow(low: float, high: float) -> Any:
    """A responder that waits low..high seconds (the same for the same request) before the usual answer."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).digest()
        time.sleep(low + (high - low) * digest[0] / 255)
        return default_responder(body)

    return respond


if __name__ == "__main__":
    port = int(sys.argv[1])
    low, high = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) > 3 else (0.2, 1.0)
    with OpenAITestServer(port=port, responder=slow(low, high)) as server:
        print(f"serving slowly on {server.base_url}", flush=True)
        while True:
            time.sleep(3600)
