"""A small local OpenAI-compatible chat server for recording HTTP-level tests.

The LangChain and LlamaIndex adapters are tested at the HTTP level: a real
``ChatOpenAI`` / LlamaIndex ``OpenAI`` client talks to this server, pytest-recording
writes the exchange to a cassette, and CI replays the cassette with the network
blocked. The server is only needed while *recording*.

Answers depend only on the request body (never on time, order or randomness), so
re-recording gives the same cassettes. The server understands our three tasks by
what their prompts ask for, and answers them plausibly:

* topic shift (LumberChunker): the prompt lists numbered units/paragraphs; the
  answer names the middle one (JSON with the keys the prompt or schema asks for,
  or the paper's ``Answer: ID XXXX`` form);
* continuity (CHOP): TRUE unless the two chunks name different model codes;
* CNM extraction (CHOP): JSON ``{"category", "nouns", "model"}`` taken from the text;
* CHOP's combined pair question and its window question (``{"passages": [...]}``).

It supports ``response_format`` (``json_schema`` and ``json_object``) and tool
calls (``tools`` + ``tool_choice``, as ``with_structured_output(method="function_calling")``
sends), and returns well-formed ``chat.completion`` objects with ``usage``.

Faults for reliability tests (``fault=``, see :class:`Fault`): hang until released, answer 429
forever (with ``retry-after-ms``), send a completion with no ``choices``, or an HTML body.
Every chat request is counted (``requests``) before the fault or the answer is sent.
Give ``port=0`` to bind a free port (tests that run in parallel with other suites).

Run it by hand with ``python -m tests.support.openai_server`` (Ctrl-C to stop).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOST = "127.0.0.1"
PORT = 18765
SERVER_NAME = "chop-test-openai-server"
MODEL = "chop-test-model"

Responder = Callable[[dict[str, Any]], dict[str, Any]]


class Fault:
    """A misbehaviour of the server, applied to every chat request.

    Args:
        kind: ``"hang"`` (no answer until ``release`` is set or ``hang_seconds`` pass, then a normal
            answer), ``"rate_limit"`` (HTTP 429 with ``retry-after-ms: 1``), ``"empty_choices"``
            (HTTP 200, ``choices: []``), ``"html"`` (HTTP 200, ``text/html`` body).
        hang_seconds: Longest hang.

    Attributes:
        release: Set it to end every hang at once (tests set it when they finish).
        hung: Set when the first request starts to hang.
        ended: Set when a hang ends (released or timed out): a client that returned before
            it is set did not wait for the stalled request.
    """

    KINDS = ("hang", "rate_limit", "empty_choices", "html")

    def __init__(self, kind: str, *, hang_seconds: float = 20.0) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"fault must be one of {self.KINDS}, got {kind!r}")
        self.kind = kind
        self.hang_seconds = hang_seconds
        self.release = threading.Event()
        self.hung = threading.Event()
        self.ended = threading.Event()


# -- reading the request -------------------------------------------------------------------------


def prompt_text(body: dict[str, Any]) -> str:
    """All message contents of a chat request joined into one string."""
    parts: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "\n".join(parts)


def _stable_int(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)


_ID_PATTERNS = (
    re.compile(r"^\s*(?:ID|Id|id)\s*[:#]?\s*(\d+)\s*[:.)\]-]", re.MULTILINE),
    re.compile(r"^\s*#(\d+)\s", re.MULTILINE),
    re.compile(r"^\s*\[(\d+)\]", re.MULTILINE),
    re.compile(r"^\s*<(\d+)>", re.MULTILINE),
    re.compile(r"^\s*(\d+)\s*[:.)]\s", re.MULTILINE),
)


def unit_ids(prompt: str) -> list[int]:
    """The numbered units a topic-shift prompt lists (``ID 3: ...``, ``#3 ...``, ``[3] ...``, ``3: ...``)."""
    for pattern in _ID_PATTERNS:
        ids = [int(m) for m in pattern.findall(prompt)]
        if len(ids) >= 2:
            return sorted(dict.fromkeys(ids))
    return []


def shift_id(prompt: str) -> int | None:
    """The unit where the server says the topic shifts: the middle listed ID after the first."""
    ids = unit_ids(prompt)
    if len(ids) < 2:
        return None
    return ids[len(ids) // 2]


_MODEL_CODE = re.compile(r"\b([A-Z]{1,5}[- ]?[A-Z]{0,3}\d{2,5}[A-Z]{0,3}|[A-Z]+-SERIES)\b")
_CATEGORIES = (
    ("camera", ("camera", "lens", "shutter")),
    ("phone", ("phone", "smartphone", "galaxy", "sim card", "call")),
    ("air conditioner", ("air conditioner", "cooling", "air filter")),
    ("coffee machine", ("coffee", "espresso", "brew")),
    ("printer", ("printer", "toner", "paper tray")),
)
_NOUN = re.compile(r"\b([a-z]{4,}(?:\s[a-z]{4,})?)\b")
_STOP = frozenset(
    "this that with from have will your about into when what which them then than there their these those "
    "each other some more most such only also very just over under after before while where been being were "
    "answer json chunk chunks text model category nouns null return field fields document following given "
    "previous current signature product family specific series name names object keys string".split()
)


_INSTRUCTION = re.compile(r"\n\s*(?:Answer|JSON only|Reply|Return)\b", re.IGNORECASE)
_FOCUS = re.compile(r"(?:Passage|B starts|Text|Chunk)\s*:\s*", re.IGNORECASE)


def focus_text(prompt: str) -> str:
    """The passage a prompt is about: the text after its last ``Passage:``/``B starts:`` marker, else all of it."""
    matches = list(_FOCUS.finditer(prompt))
    focus = prompt[matches[-1].end() :] if matches else prompt
    return _INSTRUCTION.split(focus, maxsplit=1)[0]


def cnm_answer(prompt: str) -> dict[str, Any]:
    """A deterministic CNM signature read from the passage in the prompt (model codes also from its hints)."""
    focus = focus_text(prompt)
    lowered = focus.lower()
    codes = _MODEL_CODE.findall(focus) or _MODEL_CODE.findall(prompt)
    category = next((name for name, words in _CATEGORIES if any(w in lowered for w in words)), None)
    counts: dict[str, int] = {}
    for word in _NOUN.findall(lowered):
        if not any(part in _STOP for part in word.split()):
            counts[word] = counts.get(word, 0) + 1
    nouns = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:1]]
    return {"category": category, "nouns": nouns, "model": codes[0] if codes else None}


_A_PART = re.compile(r"A ends\s*:(.*?)B starts\s*:(.*)", re.DOTALL | re.IGNORECASE)


def continuity_answer(prompt: str) -> bool:
    """TRUE (B continues A) unless A and B name different model codes.

    With ``A ends:``/``B starts:`` markers the two excerpts are compared; without
    them, any two different codes in the prompt mean FALSE.
    """
    parts = _A_PART.search(prompt)
    if parts:
        a, b = (set(_MODEL_CODE.findall(part)) for part in parts.groups())
        return not (a and b and not a & b)
    return len(set(_MODEL_CODE.findall(prompt))) < 2


def pair_answer(prompt: str) -> dict[str, Any]:
    """The combined continuity + CNM answer: ``{"continues": true}`` or ``false`` with B's signature."""
    if continuity_answer(prompt):
        return {"continues": True}
    return {"continues": False, "cnm": cnm_answer(prompt)}


_PASSAGE = re.compile(r"^\[(\d+)\]\s?(.*)$", re.MULTILINE)


def window_answer(prompt: str) -> dict[str, Any]:
    """CHOP's window question: per passage ``true`` (same model codes as the one before) or its signature.

    Passage ``[0]`` (if listed) is context only; ``[1]`` is given a signature when
    the prompt says it opens the document.
    """
    passages = {int(n): text for n, text in _PASSAGE.findall(prompt)}
    answers: list[Any] = []
    for number in sorted(n for n in passages if n >= 1):
        before = passages.get(number - 1)
        text = passages[number]
        if before is None:
            fresh = True  # the first passage listed gets a signature
        else:
            a, b = set(_MODEL_CODE.findall(before)), set(_MODEL_CODE.findall(text))
            fresh = bool(a and b and not a & b)
        answers.append(cnm_answer("Passage: " + text) if fresh else True)
    return {"passages": answers}


def detect_task(prompt: str) -> str:
    """Which task a prompt is: window, pair, cnm, continuity, topic_shift, or other."""
    lowered = prompt.lower()
    if '"passages"' in lowered and _PASSAGE.search(prompt):
        return "window"
    if '"continues"' in lowered and '"cnm"' in lowered:
        return "pair"
    if "category" in lowered and "nouns" in lowered:
        return "cnm"
    if "true" in lowered and "false" in lowered and ("continu" in lowered or "same" in lowered):
        return "continuity"
    if unit_ids(prompt) and ("shift" in lowered or "change" in lowered or "topic" in lowered):
        return "topic_shift"
    return "other"


# -- building answers ----------------------------------------------------------------------------


def _first_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if kinds else "null"
    if kind:
        return str(kind)
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key, []):
            if option.get("type") != "null":
                return _first_type(option)
    return "string"


def value_for(name: str, schema: dict[str, Any], prompt: str, defs: dict[str, Any]) -> Any:
    """A plausible value for the schema property ``name``, derived from the prompt only."""
    if "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    options = [o for o in schema.get("anyOf", schema.get("oneOf", [])) if o.get("type") != "null"]
    if options and "type" not in schema:
        return value_for(name, options[0], prompt, defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = _first_type(schema)
    lowered = name.lower()
    cnm = cnm_answer(prompt)
    shift = shift_id(prompt)
    if kind == "object":
        return object_for(schema, prompt, defs)
    if kind == "array":
        item = schema.get("items", {})
        if lowered in ("nouns",):
            return cnm["nouns"]
        if _first_type(item) == "integer":
            return [] if shift is None else [shift]
        return [value_for(name, item, prompt, defs)]
    if kind == "boolean":
        if "shift" in lowered or "change" in lowered:
            return shift is not None
        return continuity_answer(prompt)
    if kind in ("integer", "number"):
        return 0 if shift is None else shift
    if lowered in ("category", "model"):
        return cnm[lowered]
    if lowered in ("answer", "continues", "decision", "label"):
        return "TRUE" if continuity_answer(prompt) else "FALSE"
    return "ok"


def object_for(schema: dict[str, Any], prompt: str, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object with every property of a JSON schema filled from the prompt."""
    defs = {**(defs or {}), **schema.get("$defs", {}), **schema.get("definitions", {})}
    if "passages" in schema.get("properties", {}) and detect_task(prompt) == "window":
        return window_answer(prompt)
    value = {key: value_for(key, sub, prompt, defs) for key, sub in schema.get("properties", {}).items()}
    if value.get("continues") is True and "cnm" in value:
        value["cnm"] = None  # the combined question: a signature only where the pair does not continue
    return value


_JSON_KEYS = re.compile(r"[\"'`]([a-z_]{2,30})[\"'`]\s*:")


def text_answer(prompt: str) -> str:
    """The answer to a plain-text request, by task."""
    task = detect_task(prompt)
    if task == "window":
        return json.dumps(window_answer(prompt))
    if task == "pair":
        return json.dumps(pair_answer(prompt))
    if task == "cnm":
        return json.dumps(cnm_answer(prompt))
    if task == "continuity":
        return "TRUE" if continuity_answer(prompt) else "FALSE"
    if task == "topic_shift":
        shift = shift_id(prompt)
        keys = [k for k in _JSON_KEYS.findall(prompt) if k not in ("category", "nouns", "model")]
        if "json" in prompt.lower() and keys:
            key = keys[0]
            value: Any = [] if shift is None else [shift]
            if not any(word in key for word in ("starts", "indexes", "indices", "ids", "shifts", "boundaries")):
                value = shift
            return json.dumps({key: value})
        return f"Answer: ID {shift:04d}" if shift is not None else "Answer: no shift"
    return f"echo: {prompt[:80]}"


def default_responder(body: dict[str, Any]) -> dict[str, Any]:
    """The assistant message for a chat request: a tool call, schema-shaped JSON or text."""
    prompt = prompt_text(body)
    tools = body.get("tools") or []
    if tools:
        choice = body.get("tool_choice")
        wanted = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
        tool = next((t for t in tools if t.get("function", {}).get("name") == wanted), tools[0])
        function = tool.get("function", {})
        arguments = object_for(function.get("parameters", {}), prompt)
        call_id = f"call_{_stable_int(prompt + function.get('name', '')):08x}"
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": function.get("name", "tool"), "arguments": json.dumps(arguments)},
                }
            ],
        }
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        schema = response_format.get("json_schema", {}).get("schema", {})
        return {"role": "assistant", "content": json.dumps(object_for(schema, prompt))}
    if response_format.get("type") == "json_object" and detect_task(prompt) == "continuity":
        return {"role": "assistant", "content": json.dumps({"continues": continuity_answer(prompt)})}
    return {"role": "assistant", "content": text_answer(prompt)}


def _count(text: str) -> int:
    return max(1, len(text.split()))


def completion(body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """A well-formed ``chat.completion`` object around ``message``, with ``usage``."""
    prompt = prompt_text(body)
    answer = message.get("content") or json.dumps(message.get("tool_calls", []))
    prompt_tokens, completion_tokens = _count(prompt), _count(answer)
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()[:24]
    return {
        "id": f"chatcmpl-{digest}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": body.get("model") or MODEL,
        "system_fingerprint": "fp_chop_test",
        "choices": [
            {
                "index": 0,
                "message": {**message, "refusal": None},
                "logprobs": None,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


# -- the server ----------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode("utf-8"), "application/json", headers)

    def _send_bytes(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _faulty(self, body: dict[str, Any], fault: Fault) -> bool:
        """Apply ``fault`` to this request; True when the reply has been sent."""
        if fault.kind == "hang":
            fault.hung.set()
            fault.release.wait(fault.hang_seconds)
            fault.ended.set()
            return False
        if fault.kind == "rate_limit":
            error = {"message": "Rate limit reached (test server)", "type": "requests", "code": "rate_limit_exceeded"}
            self._send(429, {"error": error}, {"retry-after-ms": "1", "retry-after": "0"})
        elif fault.kind == "empty_choices":
            self._send(200, {**completion(body, {"role": "assistant", "content": ""}), "choices": []})
        else:
            self._send_bytes(200, b"<html><body><h1>Gateway login</h1></body></html>", "text/html")
        return True

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/health", "/v1/health"):
            self._send(200, {"server": SERVER_NAME})
        elif self.path.rstrip("/") in ("/models", "/v1/models"):
            self._send(200, {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "chop"}]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError as exc:
            self._send(400, {"error": {"message": f"invalid JSON: {exc}", "type": "invalid_request_error"}})
            return
        if self.path.split("?")[0].rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
            return
        if body.get("stream"):
            self._send(400, {"error": {"message": "streaming is not supported", "type": "invalid_request_error"}})
            return
        self.server.requests.append(body)
        fault = self.server.fault
        if fault is not None and self._faulty(body, fault):
            return
        try:
            self._send(200, completion(body, self.server.responder(body)))
        except (ConnectionError, OSError):  # the client gave up (its timeout) while we hung
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when a client drops its keep-alive connection (normal at the end of a test)."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    def __init__(self, address: tuple[str, int], responder: Responder, fault: Fault | None = None) -> None:
        super().__init__(address, _Handler)
        self.responder = responder
        self.fault = fault
        self.requests: list[dict[str, Any]] = []


class OpenAITestServer:
    """The local OpenAI-compatible server, run in a background thread.

    Use as a context manager, or call :meth:`start` and :meth:`stop`.

    Args:
        host: Loopback address to bind.
        port: Fixed port (cassettes record the URL, so replays need the same one).
        responder: Builds the assistant message from the request body.
        fault: A misbehaviour applied to every chat request (see :class:`Fault`), or None.

    Attributes:
        requests: The JSON bodies of the chat requests received, in order.
    """

    def __init__(
        self,
        *,
        host: str = HOST,
        port: int = PORT,
        responder: Responder = default_responder,
        fault: Fault | None = None,
    ) -> None:
        self.host, self.port, self.responder, self.fault = host, port, responder, fault
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give an OpenAI client (ends in ``/v1``)."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The chat request bodies this server has received."""
        return [] if self._server is None else self._server.requests

    def start(self) -> OpenAITestServer:
        """Bind the port and serve in a daemon thread.

        Raises:
            OSError: When the port is taken (see :func:`server_running`).
        """
        self._server = _Server((self.host, self.port), self.responder, self.fault)
        self.port = self._server.server_address[1]  # the bound port when 0 was asked for
        self._thread = threading.Thread(target=self._server.serve_forever, name=SERVER_NAME, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (a hang in progress is released first)."""
        if self.fault is not None:
            self.fault.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> OpenAITestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def free_port() -> int:
    """A loopback port free now, for a server of one test (tests that run at once do not share a port)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def server_running(host: str = HOST, port: int = PORT) -> bool:
    """True when an instance of this server already answers on ``host:port``."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://{host}:{port}/health", timeout=1) as response:
            return bool(json.loads(response.read()).get("server") == SERVER_NAME)
    except (OSError, ValueError):
        return False


if __name__ == "__main__":  # pragma: no cover - manual use
    import time

    with OpenAITestServer() as running:
        print(f"serving on {running.base_url} (Ctrl-C to stop)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
