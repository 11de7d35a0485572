"""A local fake of an OpenAI-compatible Chat Completions server, good enough for the official
``openai`` client.

It serves ``POST .../chat/completions`` (any prefix: ``/v1``, Azure's
``/openai/deployments/<name>``) on 127.0.0.1. It reads the translator's user message (JSON
documents of items keyed by id) and "translates" each item deterministically with the pseudo
translator (``Read <1>this</1>`` into de → ``[de: Ŕéáđ <1>ţĥíš</1> ···]``: placeholders kept),
whatever the texts say. ``usage`` counts 4 characters per token plus 4 tokens per message.
``response_format`` is honoured, or refused when ``supports`` says so; a ``temperature`` is
refused when ``accepts_temperature`` is False.

Every request is recorded; faults are injected on demand, for the next requests::

    fake.fail_next("rate_limit", retry_after=0.1)   # 429 with a retry-after header
    fake.fail_next("quota")                   # 429 insufficient_quota
    fake.fail_next("server_error", times=2)   # 500, twice
    fake.fail_next("slow", delay=2.0)         # answers after 2 s
    fake.fail_next("drop")                    # closes the connection without an answer
    fake.fail_next("invalid_json")            # also: missing_id, extra_id, drop_placeholder,
                                              # echo, refusal, content_filter, truncated,
                                              # context_length

or whenever a request carries a text containing some words (the fault then targets that
item: it is the one left out, echoed, stripped of its placeholders...)::

    fake.fault_on("Tricky", "refusal")        # every request with it is refused
    fake.fault_on("Tricky", "echo", times=1)

``fake.quota_exceeded = True`` answers insufficient_quota until set back to False;
``fake.exhaust_quota_after(n)`` does so after n answered requests.

It also serves OpenAI's Files and Batch APIs (``.../files``, ``.../batches``, any prefix;
tests/fake_openai_batches.py). A batch's lines are answered by the code above, faults and
quota included, when the batch is read once due; they are recorded in ``fake.requests`` too
(with ``batch_id`` and ``custom_id``). Uploads and results are in ``fake.files`` (id → bytes),
batches in ``fake.batches`` (id → state; ``fake.batch(id)`` brings one up to date),
``fake.batches_created`` counts them. A batch is ``validating`` when created, ``in_progress``
when read afterwards, done when read ``fake.batch_delay`` seconds (default 0.0) after its
creation. How it ends, for the next batch created (each call queues one)::

    fake.batch_delay = 0.2                    # in_progress for 0.2 s, then done
    fake.batch_outcome("expired")             # only the first half of the lines answered,
                                              # the others absent from every file
    fake.batch_outcome("failed")              # status failed, errors.data [{code, message}]
    fake.batch_outcome("failed", code="...", message="...")
    fake.batch_outcome("partial", failed_lines=2)  # the first 2 lines: 500s, in the error file
    fake.batch_outcome("expired", every=True)      # every batch from now on ("completed" resets)

``POST .../batches/{id}/cancel`` makes a batch not yet due ``cancelling``, then ``cancelled``
(no line answered) on the next read; a done batch is refused with a 409.
"""

from __future__ import annotations

import json
import math
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fake_http import FakeServer
from tests.fake_openai_batches import FakeBatchAPI, is_batch_api
from wagtail_bulk_translate.translators.pseudo import pseudo_localize

CHARACTERS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4
PLACEHOLDER_CHARS = str.maketrans("", "", "<>/0123456789")
REQUEST_FAULTS = {"rate_limit", "quota", "server_error", "slow", "drop", "context_length"}
ANSWER_FAULTS = {
    "invalid_json",
    "missing_id",
    "extra_id",
    "drop_placeholder",
    "echo",
    "refusal",
    "content_filter",
    "truncated",
    "short",
}
REFUSAL = "I'm sorry, but I can't help with that request."


def tokens(text: str) -> int:
    return math.ceil(len(text) / CHARACTERS_PER_TOKEN)


def error(message: str, code: str | None, param: str | None = None, kind: str = "") -> dict:
    return {
        "error": {
            "message": message,
            "type": kind or "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


@dataclass
class Fault:
    kind: str
    retry_after: float | None = None
    delay: float = 0.0


@dataclass
class ChatRequest:
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: dict[str, Any]
    status: int = 200
    items: dict[str, str] = field(default_factory=dict)  # id → text, as sent
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fault: str | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    def message(self, role: str) -> str:
        return next((m["content"] for m in self.messages if m["role"] == role), "")

    @property
    def batch(self) -> dict[str, Any]:
        try:
            return json.loads(self.message("user"))
        except ValueError:
            return {}


class FakeOpenAI(FakeBatchAPI, FakeServer):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[ChatRequest] = []
        self.faults: deque[Fault | None] = deque()
        self.text_faults: dict[str, list[Any]] = {}  # words → [kind, times left or None]
        self.rejected_keys: set[str] = set()
        # Some proxies quote the key they refuse: the translator must not store it.
        self.echo_key_in_errors = False
        self.supports = {"json_schema": True, "json_object": True}
        self.accepts_temperature = True
        self.quota_exceeded = False
        self.quota_after: int | None = None
        self.context_tokens = 128_000

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    # --- injection ----------------------------------------------------------------------------

    def fail_next(
        self,
        kind: str,
        times: int = 1,
        after: int = 0,
        retry_after: float | None = None,
        delay: float = 0.0,
    ) -> None:
        assert kind in REQUEST_FAULTS | ANSWER_FAULTS, kind
        self.faults.extend(None for _ in range(after))
        self.faults.extend(Fault(kind, retry_after, delay) for _ in range(times))

    def fault_on(self, words: str, kind: str, times: int | None = None) -> None:
        assert kind in REQUEST_FAULTS | ANSWER_FAULTS, kind
        self.text_faults[words] = [kind, times]

    def exhaust_quota_after(self, answers: int) -> None:
        self.quota_after = len(self.answered()) + answers

    # --- what happened ------------------------------------------------------------------------

    def answered(self) -> list[ChatRequest]:
        return [r for r in self.requests if r.status == 200]

    def texts_sent(self) -> list[str]:
        """Item texts (as the model saw them) of the answered requests, repeats included."""
        return [text for r in self.answered() for text in r.items.values()]

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.answered())

    @property
    def completion_tokens(self) -> int:
        return sum(r.completion_tokens for r in self.answered())

    # --- the API ------------------------------------------------------------------------------

    def handle(self, http: BaseHTTPRequestHandler) -> None:
        url = urlsplit(http.path)
        if is_batch_api(url.path):
            self.handle_batch_api(http)
            return
        raw = self.read_body(http)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        record = ChatRequest(
            url.path,
            {k: v[0] for k, v in parse_qs(url.query).items()},
            {k.lower(): v for k, v in http.headers.items()},
            body,
        )
        with self.lock:
            self.requests.append(record)
        status, payload, headers = self.respond(record)
        record.status = status
        if status < 0:
            self.drop(http)
        else:
            self.send(http, status, payload, headers)

    def respond(self, r: ChatRequest) -> tuple[int, Any, dict[str, str]]:
        key = r.headers.get("authorization", "").removeprefix("Bearer ")
        if not key or key in self.rejected_keys:
            said = f"Incorrect API key provided: {key}." if self.echo_key_in_errors else ""
            return 401, error(said or "Incorrect API key provided.", "invalid_api_key"), {}
        if not is_chat_completions(r.path) or not r.body:
            return 404, error("Not found", "not_found"), {}
        r.items = {
            item["id"]: item["text"]
            for doc in r.batch.get("documents", [])
            for item in doc.get("items", [])
        }
        fault = self.next_fault(r)
        r.fault = fault.kind if fault else None
        if fault and fault.delay:
            time.sleep(fault.delay)
        refused = self.refuse_request(r, fault)
        if refused is not None:
            return refused
        content, finish, refusal = self.answer(r, fault)
        r.prompt_tokens = sum(
            tokens(str(m.get("content", ""))) + TOKENS_PER_MESSAGE for m in r.messages
        )
        r.completion_tokens = tokens(content or refusal or "")
        completion = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 1_764_900_000,
            "model": r.body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": refusal},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": r.prompt_tokens,
                "completion_tokens": r.completion_tokens,
                "total_tokens": r.prompt_tokens + r.completion_tokens,
            },
        }
        return 200, completion, {}

    def next_fault(self, r: ChatRequest) -> Fault | None:
        with self.lock:
            if self.faults:
                fault = self.faults.popleft()
                if fault is not None:
                    return fault
            for words, entry in self.text_faults.items():
                if any(words in text for text in r.items.values()) and entry[1] != 0:
                    if entry[1] is not None:
                        entry[1] -= 1
                    return Fault(entry[0])
        return None

    def refuse_request(self, r: ChatRequest, fault: Fault | None) -> tuple | None:
        kind = fault.kind if fault else None
        if kind == "drop":
            return -1, None, {}
        if kind == "rate_limit":
            headers = {"retry-after": str(fault.retry_after)} if fault.retry_after else {}
            return 429, error("Rate limit reached for requests.", "rate_limit_exceeded"), headers
        if kind == "server_error":
            return 500, error("The server had an error.", None, kind="server_error"), {}
        with self.lock:
            if self.quota_after is not None and len(self.answered()) >= self.quota_after:
                self.quota_exceeded, self.quota_after = True, None
        if kind == "quota" or self.quota_exceeded:
            return (
                429,
                error(
                    "You exceeded your current quota, please check your plan and billing details.",
                    "insufficient_quota",
                    kind="insufficient_quota",
                ),
                {},
            )
        format_type = (r.body.get("response_format") or {}).get("type")
        if format_type and not self.supports.get(format_type, True):
            return (
                400,
                error(
                    f"Invalid parameter: 'response_format' of type '{format_type}' is not "
                    "supported with this model.",
                    None,
                    "response_format",
                ),
                {},
            )
        if "temperature" in r.body and not self.accepts_temperature:
            return (
                400,
                error(
                    f"Unsupported value: 'temperature' does not support {r.body['temperature']} "
                    "with this model. Only the default (1) value is supported.",
                    "unsupported_value",
                    "temperature",
                ),
                {},
            )
        prompt = sum(tokens(str(m.get("content", ""))) for m in r.messages)
        if kind == "context_length" or prompt > self.context_tokens:
            return (
                400,
                error(
                    f"This model's maximum context length is {self.context_tokens} tokens. "
                    f"However, your messages resulted in {prompt} tokens.",
                    "context_length_exceeded",
                    "messages",
                ),
                {},
            )
        return None

    def answer(self, r: ChatRequest, fault: Fault | None) -> tuple[str | None, str, str | None]:
        """(content, finish_reason, refusal) of a request that is answered."""
        kind = fault.kind if fault else None
        if kind == "refusal":
            return None, "stop", REFUSAL
        if kind == "content_filter":
            return None, "content_filter", None
        target = str(r.batch.get("target_language", "xx"))
        out = {item_id: pseudo_localize(text, target) for item_id, text in r.items.items()}
        victim = self.victim(r)
        if kind == "missing_id" and victim:
            del out[victim]
        if kind == "extra_id":
            out["999"] = "[extra]"
        if kind == "drop_placeholder" and victim:
            out[victim] = pseudo_localize(r.items[victim].translate(PLACEHOLDER_CHARS), target)
        if kind == "echo" and victim:
            out[victim] = r.items[victim]
        if kind == "short" and victim:
            out[victim] = "Ok"
        content = json.dumps(
            {"translations": [{"id": i, "text": t} for i, t in out.items()]}, ensure_ascii=False
        )
        if kind == "invalid_json":
            return content[: len(content) // 2] + " (and so on", "stop", None
        if kind == "truncated":
            return content[: len(content) // 2], "length", None
        return content, "stop", None

    def victim(self, r: ChatRequest) -> str | None:
        """The item a fault targets: the one with the words of a text fault, else the first
        (the first with a placeholder, for drop_placeholder)."""
        for words in self.text_faults:
            for item_id, text in r.items.items():
                if words in text:
                    return item_id
        with_tags = [i for i, t in r.items.items() if "<" in t]
        if r.fault == "drop_placeholder" and with_tags:
            return with_tags[0]
        return next(iter(r.items), None)


def is_chat_completions(path: str) -> bool:
    """OpenAI's path, or Azure's (a deployment's)."""
    return path == "/v1/chat/completions" or (
        path.startswith("/openai/deployments/") and path.endswith("/chat/completions")
    )


@pytest.fixture
def fake_openai():
    """A running FakeOpenAI; ``.base_url`` is the BASE_URL to give the translator."""
    with FakeOpenAI() as fake:
        yield fake
