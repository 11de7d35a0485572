"""OpenAI's Files and Batch APIs for the fake OpenAI server (:class:`FakeBatchAPI`, a mixin of
:class:`tests.fake_openai.FakeOpenAI`), good enough for the official ``openai`` client.

It serves, after any prefix (``/v1``, Azure's ``/openai``)::

    POST   .../files                  multipart ``file`` and ``purpose``  → a file object
    GET    .../files                  the files, newest first (one page)
    GET    .../files/{id}             the file object
    GET    .../files/{id}/content     its bytes
    DELETE .../files/{id}
    POST   .../batches                ``{input_file_id, endpoint, completion_window, metadata}``
    GET    .../batches?limit=&after=  a cursor page of batches, newest first
    GET    .../batches/{id}
    POST   .../batches/{id}/cancel

A batch's lines are answered with the synchronous chat completions' own code
(:meth:`FakeOpenAI.respond`): the pseudo translation, its usage, the word faults of
``fault_on``, the next faults of ``fail_next``, the quota. They are recorded in
``fake.requests`` too, as :class:`BatchLineRequest`. A batch is ``validating`` when created,
``in_progress`` when read afterwards, and done when read ``fake.batch_delay`` seconds after its
creation (the delay in force at the read): its lines are answered then, and written to the
output file (answers) and the error file (HTTP errors), in another order than the input's.
"""

from __future__ import annotations

import email.parser
import email.policy
import functools
import json
import random
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:
    from tests.fake_openai import ChatRequest

CHAT_ENDPOINT = "/v1/chat/completions"
AZURE_CHAT_ENDPOINT = "/chat/completions"  # what Azure's batch documentation sends
COMPLETION_WINDOW = "24h"
OUTCOMES = {"completed", "expired", "failed", "partial"}
DONE = {"completed", "expired", "failed", "cancelled"}
FILE_PURPOSES = {
    "assistants",
    "assistants_output",
    "batch",
    "batch_output",
    "fine-tune",
    "fine-tune-results",
    "vision",
    "user_data",
}
API_PATH = re.compile(
    r"^(?P<prefix>.*?)/(?P<kind>files|batches)(?:/(?P<id>[^/]+)(?:/(?P<action>content|cancel))?)?/?$"
)
FAILED_CODE = "token_limit_exceeded"
FAILED_MESSAGE = (
    "Enqueued token limit reached for fake-model in organization org-fake. Limit: 90,000 "
    "enqueued tokens. Please try again once some in_progress batches have been completed."
)
LINE_SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"


def is_batch_api(path: str) -> bool:
    """A path of the Files or Batch APIs, whatever its prefix."""
    return API_PATH.match(path) is not None


def api_error(message: str, code: str | None = None, param: str | None = None) -> dict:
    kind = "server_error" if code == "server_error" else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


@dataclass
class Outcome:
    kind: str = "completed"
    failed_lines: int = 0
    code: str = FAILED_CODE
    message: str = FAILED_MESSAGE


@dataclass
class BatchLine:
    number: int  # 1-based, as OpenAI counts the lines of a file
    custom_id: str
    url: str
    body: dict[str, Any]


@dataclass
class BatchState:
    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: dict[str, str] | None
    lines: list[BatchLine]
    headers: dict[str, str]  # the creating request's, the lines are answered with its key
    outcome: Outcome
    created_at: int
    started: float  # time.monotonic() at creation
    status: str = "validating"
    in_progress_at: int | None = None
    finalizing_at: int | None = None
    completed_at: int | None = None
    failed_at: int | None = None
    expired_at: int | None = None
    cancelling_at: int | None = None
    cancelled_at: int | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0
    errors: list[dict[str, Any]] | None = None
    usage: dict[str, int] = field(
        default_factory=lambda: {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    )
    requests: list[ChatRequest] = field(default_factory=list)  # its lines, as answered

    @property
    def model(self) -> str | None:
        return next((line.body.get("model") for line in self.lines), None)

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "model": self.model,
            "errors": {"object": "list", "data": self.errors} if self.errors else None,
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "in_progress_at": self.in_progress_at,
            "expires_at": self.created_at + 24 * 3600,
            "finalizing_at": self.finalizing_at,
            "completed_at": self.completed_at,
            "failed_at": self.failed_at,
            "expired_at": self.expired_at,
            "cancelling_at": self.cancelling_at,
            "cancelled_at": self.cancelled_at,
            "request_counts": {
                "total": len(self.lines),
                "completed": self.completed,
                "failed": self.failed,
            },
            "usage": {
                "input_tokens": self.usage["input_tokens"],
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": self.usage["output_tokens"],
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": self.usage["total_tokens"],
            },
            "metadata": self.metadata,
        }


@functools.cache
def batch_line_request_class() -> type:
    """:class:`BatchLineRequest`, made on first use: tests.fake_openai imports this module."""
    from tests.fake_openai import ChatRequest

    @dataclass
    class BatchLineRequest(ChatRequest):
        """A batch's line, answered as a chat request is."""

        batch_id: str = ""
        custom_id: str = ""
        number: int = 0  # the how-manieth line answered by the server, all batches counted

    return BatchLineRequest


class Refused(Exception):
    """An OpenAI error answer: raised anywhere in the routing, sent by handle_batch_api()."""

    def __init__(
        self, status: int, message: str, code: str | None = None, param: str | None = None
    ):
        super().__init__(message)
        self.status, self.body = status, api_error(message, code, param)


class FakeBatchAPI:
    """The Files and Batch APIs, on a server that answers chat requests with ``respond()``.

    Needs from its class: ``lock``, ``requests``, ``rejected_keys``, ``respond(ChatRequest)``
    and FakeServer's ``read_body``, ``send``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.files: dict[str, bytes] = {}  # id → content, uploads and batch outputs
        self.file_objects: dict[str, dict[str, Any]] = {}  # id → the file object
        self.batches: dict[str, BatchState] = {}  # id → state, in creation order
        self.batches_created = 0
        self.batch_delay = 0.0
        self.batch_api_calls: list[tuple[str, str, dict[str, str]]] = []  # method, path, query
        self.next_outcomes: deque[Outcome] = deque()
        self.default_outcome = Outcome()
        self.batch_lock = threading.RLock()  # taken before self.lock, never inside it
        self.files_created = 0
        self.line_answers = 0

    # --- controls -----------------------------------------------------------------------------

    def batch_outcome(
        self,
        kind: str,
        failed_lines: int = 0,
        *,
        every: bool = False,
        code: str = FAILED_CODE,
        message: str = FAILED_MESSAGE,
    ) -> None:
        """How the next batch created ends (each call queues one), or every batch from now on
        with ``every=True``: "completed", "expired" (only the first half of the lines answered),
        "failed" (``errors`` carries ``code`` and ``message``), "partial" (the first
        ``failed_lines`` lines are server errors in the error file)."""
        assert kind in OUTCOMES, kind
        assert kind == "partial" or not failed_lines, "failed_lines is for a partial outcome"
        outcome = Outcome(kind, failed_lines, code, message)
        with self.batch_lock:
            if every:
                self.default_outcome = outcome
                self.next_outcomes.clear()
            else:
                self.next_outcomes.append(outcome)

    def batch(self, batch_id: str) -> BatchState:
        """A batch's state, brought up to date as a read of it would."""
        with self.batch_lock:
            return self.advance(self.batches[batch_id])

    def jsonl(self, file_id: str) -> list[dict[str, Any]]:
        """A file's lines, parsed."""
        return [json.loads(line) for line in self.files[file_id].decode().splitlines() if line]

    # --- the API ------------------------------------------------------------------------------

    def handle_batch_api(self, http: BaseHTTPRequestHandler) -> None:
        raw = self.read_body(http)
        url = urlsplit(http.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        headers = {k.lower(): v for k, v in http.headers.items()}
        match = API_PATH.match(url.path)
        assert match is not None
        with self.lock:
            self.batch_api_calls.append((http.command, url.path, query))
        try:
            key = self.api_key(headers)
            if not key or key in self.rejected_keys:
                raise Refused(401, "Incorrect API key provided.", "invalid_api_key")
            with self.batch_lock:
                payload = self.route(http.command, match, raw, query, headers)
        except Refused as refused:
            self.send(http, refused.status, refused.body)
            return
        if isinstance(payload, bytes):
            self.send_bytes(http, payload)
        else:
            self.send(http, 200, payload)

    def route(
        self,
        method: str,
        match: re.Match,
        raw: bytes,
        query: dict[str, str],
        headers: dict[str, str],
    ) -> Any:
        kind, item, action = match["kind"], match["id"], match["action"]
        azure = match["prefix"].startswith("/openai")
        if kind == "files":
            if method == "POST" and not item:
                return self.upload(raw, headers.get("content-type", ""))
            if method == "GET" and not item:
                return self.page([*reversed(self.file_objects.values())], query)
            file = self.file_objects.get(item or "")
            if file is None:
                raise Refused(404, f"No such File object: {item}", None, "id")
            if method == "GET" and action == "content":
                return self.files[file["id"]]
            if method == "GET" and not action:
                return file
            if method == "DELETE" and not action:
                del self.file_objects[file["id"]], self.files[file["id"]]
                return {"id": file["id"], "object": "file", "deleted": True}
        else:
            if method == "POST" and not item:
                return self.create_batch(raw, headers, azure).json()
            if method == "GET" and not item:
                batches = [self.advance(b) for b in reversed(self.batches.values())]
                return self.page([b.json() for b in batches], query)
            state = self.batches.get(item or "")
            if state is None:
                raise Refused(404, f"No batch found with id '{item}'.", None, "batch_id")
            if method == "GET" and not action:
                return self.advance(state).json()
            if method == "POST" and action == "cancel":
                return self.cancel(state).json()
        raise Refused(404, "Invalid URL", "not_found")

    @staticmethod
    def api_key(headers: dict[str, str]) -> str:
        """OpenAI's bearer token or Azure's api-key header."""
        return headers.get("authorization", "").removeprefix("Bearer ") or headers.get(
            "api-key", ""
        )

    @staticmethod
    def page(objects: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
        """A cursor page of ``objects`` (newest first): ``limit`` of them after ``after``."""
        after = query.get("after")
        if after:
            ids = [o["id"] for o in objects]
            objects = objects[ids.index(after) + 1 :] if after in ids else []
        limit = max(1, min(100, int(query.get("limit") or 20)))
        data = objects[:limit]
        return {
            "object": "list",
            "data": data,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
            "has_more": len(objects) > limit,
        }

    @staticmethod
    def send_bytes(http: BaseHTTPRequestHandler, body: bytes) -> None:
        http.send_response(200)
        http.send_header("Content-Type", "application/octet-stream")
        http.send_header("Content-Length", str(len(body)))
        http.end_headers()
        http.wfile.write(body)

    # --- files --------------------------------------------------------------------------------

    def upload(self, raw: bytes, content_type: str) -> dict[str, Any]:
        if not content_type.startswith("multipart/form-data"):
            raise Refused(400, "The request must be multipart/form-data.", None, "file")
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
        )
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
        if "file" not in fields:
            raise Refused(400, "Missing required parameter: 'file'.", None, "file")
        purpose = fields.get("purpose", (None, b""))[1].decode()
        if purpose not in FILE_PURPOSES:
            raise Refused(
                400,
                f"'{purpose}' is not one of {sorted(FILE_PURPOSES)} - 'purpose'",
                None,
                "purpose",
            )
        filename, content = fields["file"]
        return self.store_file(content, filename or "upload", purpose)

    def store_file(self, content: bytes, filename: str, purpose: str) -> dict[str, Any]:
        self.files_created += 1
        file_id = f"file-{self.files_created:024x}"
        self.files[file_id] = content
        self.file_objects[file_id] = {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
            "status_details": None,
            "expires_at": None,
        }
        return self.file_objects[file_id]

    # --- batches ------------------------------------------------------------------------------

    def create_batch(self, raw: bytes, headers: dict[str, str], azure: bool) -> BatchState:
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            raise Refused(400, "We could not parse the JSON body of your request.") from None
        endpoints = {CHAT_ENDPOINT, AZURE_CHAT_ENDPOINT} if azure else {CHAT_ENDPOINT}
        file_id = body.get("input_file_id")
        if body.get("endpoint") not in endpoints:
            raise Refused(
                400,
                f"Invalid value: '{body.get('endpoint')}'. This fake serves only "
                f"{' and '.join(sorted(endpoints))}.",
                "invalid_value",
                "endpoint",
            )
        if body.get("completion_window") != COMPLETION_WINDOW:
            raise Refused(
                400,
                f"Invalid value: '{body.get('completion_window')}'. Supported values are: '24h'.",
                "invalid_value",
                "completion_window",
            )
        file = self.file_objects.get(file_id or "")
        if file is None:
            raise Refused(
                400, f"Invalid 'input_file_id': '{file_id}'. No such file.", None, "input_file_id"
            )
        if file["purpose"] != "batch":
            raise Refused(
                400,
                f"The file {file_id} was uploaded with purpose '{file['purpose']}', "
                "a batch's must be 'batch'.",
                None,
                "input_file_id",
            )
        lines = self.parse_lines(self.files[file_id], body["endpoint"], endpoints)
        self.batches_created += 1
        outcome = self.next_outcomes.popleft() if self.next_outcomes else self.default_outcome
        state = BatchState(
            id=f"batch_{self.batches_created:032x}",
            input_file_id=file_id,
            endpoint=body["endpoint"],
            completion_window=body["completion_window"],
            metadata=body.get("metadata"),
            lines=lines,
            headers={**headers, "authorization": f"Bearer {self.api_key(headers)}"},
            outcome=outcome,
            created_at=int(time.time()),
            started=time.monotonic(),
        )
        self.batches[state.id] = state
        return state

    @staticmethod
    def parse_lines(content: bytes, endpoint: str, endpoints: set[str]) -> list[BatchLine]:
        """The input file's requests, or a refusal naming the first bad line."""
        lines: list[BatchLine] = []
        seen: set[str] = set()
        for number, text in enumerate(content.decode("utf-8", "replace").splitlines(), 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except ValueError:
                line = None
            problem = None
            if not isinstance(line, dict):
                problem = "is not a JSON object"
            elif not isinstance(line.get("custom_id"), str) or not line["custom_id"]:
                problem = "has no custom_id"
            elif line["custom_id"] in seen:
                problem = f"repeats the custom_id '{line['custom_id']}'"
            elif line.get("method") != "POST":
                problem = "has a method other than POST"
            elif line.get("url") not in endpoints:
                problem = f"has the url '{line.get('url')}', not the batch's endpoint {endpoint}"
            elif not isinstance(line.get("body"), dict) or not line["body"]:
                problem = "has no request body"
            if problem:
                raise Refused(
                    400,
                    f"Invalid batch input file: line {number} {problem}.",
                    "invalid_batch_input",
                    "input_file_id",
                )
            seen.add(line["custom_id"])
            lines.append(BatchLine(number, line["custom_id"], line["url"], line["body"]))
        if not lines:
            raise Refused(
                400, "Invalid batch input file: it has no requests.", "empty_file", "input_file_id"
            )
        return lines

    def cancel(self, state: BatchState) -> BatchState:
        self.advance(state)
        if state.status == "cancelling":
            return state
        if state.status in DONE:
            raise Refused(409, f"Cannot cancel a batch with status '{state.status}'.")
        state.status, state.cancelling_at = "cancelling", int(time.time())
        return state

    def advance(self, state: BatchState) -> BatchState:
        """Where the batch is now: read lazily, so time moves only when someone looks."""
        if state.status in DONE:
            return state
        now = int(time.time())
        if state.status == "cancelling":
            state.status, state.cancelled_at = "cancelled", now
            return state
        due = time.monotonic() - state.started >= self.batch_delay
        outcome = state.outcome
        if outcome.kind == "failed":
            if due:
                state.status, state.failed_at = "failed", now
                state.errors = [
                    {"code": outcome.code, "message": outcome.message, "param": None, "line": None}
                ]
            return state
        state.in_progress_at = state.in_progress_at or now
        if not due:
            state.status = "in_progress"
            return state
        lines = state.lines
        if outcome.kind == "expired":
            lines = lines[: len(lines) // 2]
        failing = lines[: outcome.failed_lines] if outcome.kind == "partial" else []
        answers, errors = [], []
        for line in lines:
            status, body, record = self.answer_line(state, line, line in failing)
            entry = {
                "id": f"batch_req_{record.number:032x}",
                "custom_id": line.custom_id,
                "response": {
                    "status_code": status,
                    "request_id": f"req_{record.number:032x}",
                    "body": body,
                },
                "error": None,
            }
            (answers if status == 200 else errors).append(entry)
        state.completed, state.failed = len(answers), len(errors)
        state.finalizing_at = now
        if answers:
            state.output_file_id = self.output_file(state, answers, "output")
        if errors:
            state.error_file_id = self.output_file(state, errors, "error")
        if outcome.kind == "expired":
            state.status, state.expired_at = "expired", now
        else:
            state.status, state.completed_at = "completed", now
        return state

    def answer_line(self, state: BatchState, line: BatchLine, fail: bool) -> tuple[int, Any, Any]:
        """(status, body, record) of a line, answered as a chat request would be."""
        record = batch_line_request_class()(
            CHAT_ENDPOINT, {}, dict(state.headers), line.body, batch_id=state.id
        )
        record.custom_id = line.custom_id
        with self.lock:
            self.requests.append(record)
            self.line_answers += 1
            record.number = self.line_answers
        if fail:
            status, body = 500, api_error(LINE_SERVER_ERROR, "server_error")
            record.fault = "server_error"
        else:
            status, body, _ = self.respond(record)
            if status < 0:  # a dropped connection, inside a batch: the server's error
                status, body = 500, api_error(LINE_SERVER_ERROR, "server_error")
        record.status = status
        state.requests.append(record)
        if status == 200:
            for name, key in (
                ("input_tokens", "prompt_tokens"),
                ("output_tokens", "completion_tokens"),
            ):
                state.usage[name] += body["usage"][key]
            state.usage["total_tokens"] += body["usage"]["total_tokens"]
        return status, body, record

    def output_file(self, state: BatchState, entries: list[dict[str, Any]], name: str) -> str:
        """A results file, its lines in another order than the input's (as OpenAI's)."""
        shuffled = entries[:]
        random.Random(state.id + name).shuffle(shuffled)
        if len(shuffled) > 1 and shuffled == entries:
            shuffled = shuffled[1:] + shuffled[:1]
        content = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in shuffled).encode()
        return self.store_file(content, f"{state.id}_{name}.jsonl", "batch_output")["id"]


def __getattr__(name: str) -> Any:
    """``BatchLineRequest``: the class of a batch's line in ``fake.requests``."""
    if name == "BatchLineRequest":
        return batch_line_request_class()
    raise AttributeError(name)
