"""A local fake of DeepL's v2 API, good enough for the official ``deepl`` client.

It serves ``/v2/translate`` (JSON and form bodies), ``/v2/usage``, ``/v2/languages``,
``/v2/glossaries`` and ``/v2/glossary-language-pairs`` on 127.0.0.1, enforces DeepL's request
limits (≤ 50 texts: 400; body ≤ 128 KiB: 413), bills like DeepL (tags are not billed) and
"translates" deterministically: ``Read <b>this</b>`` into DE becomes ``[DE] READ <b>THIS</b>``
(text nodes upper-cased, tags, link ids and entities kept, ignored tags untouched).

Every request is recorded; failures are injected on demand::

    fake.fail_next(429, times=2)     # then answers normally
    fake.fail_next(456, after=2)     # the third request runs out of quota
    fake.quota_exceeded = True       # 456 until set back to False
    fake.slow_next(2.0)              # answers after 2 s
    fake.drop_next()                 # closes the connection without an answer
    fake.drop_next(processed=True)   # translates and bills, then closes without an answer
    fake.break_markup("Read <b>this</b>", times=1)   # returns it without its tags
    fake.fail_glossary_next(503, times=5)   # the next glossary calls (create, delete...) fail
    fake.forget_glossary(glossary_id)       # deleted in the DeepL account, behind our back

Glossaries (``/v2/glossaries``, as the official client creates, reads and deletes them) are
kept in ``fake.glossaries``; creating one for a pair not in ``GLOSSARY_PAIRS`` is refused (400)
as DeepL does; ``fake.glossary_entries(id)`` reads one back.

Use the ``fake_deepl`` fixture, or ``with FakeDeepL() as fake: ... fake.url``.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from html import unescape
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fake_http import FakeServer

MAX_TEXTS = 50
MAX_BODY_BYTES = 128 * 1024

# DeepL's documented text-translation languages, kept apart from the plugin's own table so
# the fake checks the plugin rather than agreeing with it by construction.
SOURCE_LANGS = set(
    re.findall(
        r"\S+",
        "AR BG CS DA DE EL EN ES ET FI FR HE HU ID IT JA KO LT LV NB NL PL PT RO RU SK SL SV TH TR "
        "UK VI ZH",
    )
)
TARGET_LANGS = set(
    re.findall(
        r"\S+",
        "AR BG CS DA DE EL EN EN-GB EN-US ES ES-419 ET FI FR HE HU ID IT JA KO LT LV NB NL PL PT "
        "PT-BR PT-PT RO RU SK SL SV TH TR UK VI ZH ZH-HANS ZH-HANT",
    )
)
# Pairs /v2/glossary-language-pairs lists (DeepL's list is longer; these are enough to test).
GLOSSARY_PAIRS = {("en", "de"), ("en", "fr"), ("en", "es"), ("de", "en"), ("fr", "en")}
FORMALITY_LANGS = {"DE", "FR", "IT", "ES", "ES-419", "NL", "PL", "PT-BR", "PT-PT", "JA", "RU"}
LANGUAGE_NAMES = {"DE": "German", "EN": "English", "FR": "French", "ES": "Spanish"}

TAG = re.compile(r"<[^<>]*>")
ENTITY = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
PIECES = re.compile(f"({TAG.pattern}|{ENTITY.pattern})")


def billable_characters(text: str, tag_handling: str | None = "xml") -> int:
    """Characters DeepL bills for a text: with tag handling, tags are free, an entity is one."""
    if not tag_handling:
        return len(text)
    return len(unescape(TAG.sub("", text)))


def fake_translation(
    text: str, target: str, tag_handling: str | None, ignore_tags: list[str] = ()
) -> str:
    if not tag_handling:
        return f"[{target}] {text.upper()}"  # markup read as text: tags come back mangled
    out, ignored = [], 0
    for index, piece in enumerate(PIECES.split(text)):
        if index % 2:  # a tag or an entity
            name = piece.strip("</>").split()[0].lower() if piece.startswith("<") else ""
            if name in ignore_tags and not piece.endswith("/>"):
                ignored += -1 if piece.startswith("</") else 1
            out.append(piece)
        else:
            out.append(piece if ignored else piece.upper())
    return f"[{target}] " + "".join(out)


@dataclass
class RecordedRequest:
    method: str
    path: str
    content_type: str
    body_bytes: int
    params: dict[str, Any]
    auth_key: str | None
    status: int = 200
    texts: list[str] = field(default_factory=list)
    billed: int = 0

    def __getattr__(self, name: str) -> Any:
        # target_lang, source_lang, formality, glossary_id, context, tag_handling, model_type...
        if name.startswith("__"):
            raise AttributeError(name)
        return self.params.get(name)


@dataclass
class Fault:
    status: int | None = None  # answer this status
    delay: float = 0.0  # answer late
    drop: bool = False  # close the connection without answering
    processed: bool = False  # (with drop) translate and bill first: the answer is what is lost
    message: str = ""


class FakeDeepL(FakeServer):
    def __init__(self, *, character_limit: int | None = 1_000_000_000) -> None:
        super().__init__()
        self.requests: list[RecordedRequest] = []
        self.character_count = 0
        self.character_limit = character_limit
        self.quota_exceeded = False
        self.rejected_keys: set[str] = set()
        self.glossaries: dict[str, dict[str, Any]] = {}
        self.faults: deque[Fault] = deque()
        self.glossary_faults: deque[Fault] = deque()
        self.broken: dict[str, int | None] = {}
        self.answers: dict[str, str] = {}

    # --- injection ----------------------------------------------------------------------------

    def fail_next(self, status: int, times: int = 1, message: str = "", after: int = 0) -> None:
        """The next ``times`` translate requests (after ``after`` good ones) answer ``status``."""
        self.faults.extend(Fault() for _ in range(after))
        self.faults.extend(Fault(status=status, message=message) for _ in range(times))

    def slow_next(self, seconds: float, times: int = 1) -> None:
        self.faults.extend(Fault(delay=seconds) for _ in range(times))

    def drop_next(self, times: int = 1, *, processed: bool = False) -> None:
        self.faults.extend(Fault(drop=True, processed=processed) for _ in range(times))

    def fail_glossary_next(self, status: int, times: int = 1, message: str = "") -> None:
        """The next ``times`` glossary calls (create, list, read, delete) answer ``status``."""
        self.glossary_faults.extend(Fault(status=status, message=message) for _ in range(times))

    def forget_glossary(self, glossary_id: str) -> None:
        """The glossary is deleted in the DeepL account (its dashboard), not through the API."""
        with self.lock:
            del self.glossaries[glossary_id]

    def glossary_entries(self, glossary_id: str) -> dict[str, str]:
        entries = self.glossaries[glossary_id]["entries"]
        return dict(line.split("\t", 1) for line in entries.splitlines() if line)

    def translate_as(self, text: str, answer: str) -> None:
        """Answer ``answer`` for ``text`` (into every language)."""
        self.answers[text] = answer

    def break_markup(self, text: str, times: int | None = None) -> None:
        """Translate ``text`` without its tags, ``times`` times (None: always)."""
        self.broken[text] = times

    def create_glossary(self, name: str, source: str, target: str, entries: dict) -> str:
        glossary_id = str(uuid.uuid4())
        self.glossaries[glossary_id] = {
            "glossary_id": glossary_id,
            "name": name,
            "ready": True,
            "source_lang": source.lower(),
            "target_lang": target.lower(),
            "creation_time": "2026-12-01T10:00:00.000Z",
            "entry_count": len(entries),
            "entries": "\n".join(f"{k}\t{v}" for k, v in entries.items()),
        }
        return glossary_id

    # --- what happened ------------------------------------------------------------------------

    def translate_requests(self, status: int | None = 200) -> list[RecordedRequest]:
        return [
            r
            for r in self.requests
            if r.path == "/v2/translate" and (status is None or r.status == status)
        ]

    def texts_sent(self, target_lang: str | None = None) -> list[str]:
        """Texts of the answered translate requests, in order (repeats included)."""
        return [
            text
            for r in self.translate_requests()
            if target_lang in (None, r.target_lang)
            for text in r.texts
        ]

    @property
    def billed(self) -> int:
        """Characters billed, those of answers lost after billing included (as DeepL does)."""
        return sum(r.billed for r in self.translate_requests(status=None))

    # --- the API ------------------------------------------------------------------------------

    def handle(self, http: BaseHTTPRequestHandler) -> None:
        raw = self.read_body(http)
        url = urlsplit(http.path)
        content_type = http.headers.get("Content-Type", "")
        params = parse_body(raw, content_type, url.query)
        auth = http.headers.get("Authorization", "")
        key = auth.removeprefix("DeepL-Auth-Key ") if auth.startswith("DeepL-Auth-Key ") else None
        record = RecordedRequest(http.command, url.path, content_type, len(raw), params, key)
        with self.lock:
            self.requests.append(record)
        status, payload = self.respond(record, raw)
        record.status = status
        if status < 0:  # dropped: no answer at all
            self.drop(http)
        else:
            self.send(http, status, payload)

    def respond(self, r: RecordedRequest, raw: bytes) -> tuple[int, Any]:
        if r.auth_key is None or r.auth_key in self.rejected_keys:
            return 403, {"message": "Wrong endpoint or invalid authentication key"}
        path = r.path
        if path == "/v2/translate" and r.method == "POST":
            return self.translate(r, raw)
        if path == "/v2/usage":
            return 200, {
                "character_count": self.character_count,
                "character_limit": self.character_limit,
            }
        if path == "/v2/languages":
            kind = r.params.get("type", "source")
            codes = sorted(TARGET_LANGS if kind == "target" else SOURCE_LANGS)
            entries = [{"language": c, "name": LANGUAGE_NAMES.get(c[:2], c)} for c in codes]
            if kind == "target":
                for entry in entries:
                    entry["supports_formality"] = entry["language"] in FORMALITY_LANGS
            return 200, entries
        if path == "/v2/glossary-language-pairs":
            pairs = [{"source_lang": s, "target_lang": t} for s, t in sorted(GLOSSARY_PAIRS)]
            return 200, {"supported_languages": pairs}
        if path.startswith("/v2/glossaries"):
            return self.glossary_call(r)
        return 404, {"message": "Not found"}

    def translate(self, r: RecordedRequest, raw: bytes) -> tuple[int, Any]:
        with self.lock:
            fault = self.faults.popleft() if self.faults else None
        if fault and fault.delay:
            time.sleep(fault.delay)
        if fault and fault.drop and not fault.processed:
            return -1, None
        if fault and fault.status:
            return fault.status, {"message": fault.message or f"Injected {fault.status}"}
        status, payload = self.answer(r, raw)
        if fault and fault.drop:
            return -1, None  # translated and billed: only the answer is lost
        return status, payload

    def answer(self, r: RecordedRequest, raw: bytes) -> tuple[int, Any]:
        if self.quota_exceeded:
            return 456, {"message": "Quota exceeded"}
        if len(raw) > MAX_BODY_BYTES:
            return 413, {"message": "Request Entity Too Large"}
        texts = r.params.get("text")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        r.texts = texts
        if not texts:
            return 400, {"message": "Parameter 'text' not specified."}
        if len(texts) > MAX_TEXTS:
            return 400, {"message": f"Too many texts: at most {MAX_TEXTS} per request."}
        target = str(r.params.get("target_lang", "")).upper()
        source = str(r.params.get("source_lang", "")).upper()
        if target not in TARGET_LANGS:
            return 400, {"message": "Value for 'target_lang' not supported."}
        if source and source not in SOURCE_LANGS:
            return 400, {"message": "Value for 'source_lang' not supported."}
        formality = r.params.get("formality")
        if formality in ("more", "less") and target not in FORMALITY_LANGS:
            return 400, {"message": "'formality' is not supported for given 'target_lang'."}
        glossary_id = r.params.get("glossary_id")
        if glossary_id and glossary_id not in self.glossaries:
            return 404, {"message": "Glossary not found"}
        tag_handling = r.params.get("tag_handling")
        ignore = r.params.get("ignore_tags") or []
        ignore = ignore.split(",") if isinstance(ignore, str) else ignore
        billed = [billable_characters(t, tag_handling) for t in texts]
        with self.lock:
            if self.character_limit is not None and (
                self.character_count + sum(billed) > self.character_limit
            ):
                return 456, {"message": "Quota exceeded"}
            self.character_count += sum(billed)
        r.billed = sum(billed)
        translations = []
        for text, chars in zip(texts, billed, strict=True):
            out = self.maybe_break(text, fake_translation(text, target, tag_handling, ignore))
            result = {"detected_source_language": source or "EN", "text": out}
            if str(r.params.get("show_billed_characters")).lower() in ("true", "1"):
                result["billed_characters"] = chars
            if r.params.get("model_type"):
                result["model_type_used"] = r.params["model_type"]
            translations.append(result)
        return 200, {"translations": translations}

    def maybe_break(self, text: str, translated: str) -> str:
        with self.lock:
            if text in self.answers:
                return self.answers[text]
            if text not in self.broken:
                return translated
            times = self.broken[text]
            if times is not None:
                if times <= 0:
                    return translated
                self.broken[text] = times - 1
        return TAG.sub("", translated)

    def glossary_call(self, r: RecordedRequest) -> tuple[int, Any]:
        with self.lock:
            fault = self.glossary_faults.popleft() if self.glossary_faults else None
        if fault and fault.status:
            return fault.status, {"message": fault.message or f"Injected {fault.status}"}
        parts = r.path.strip("/").split("/")  # v2, glossaries, [id], [entries]
        if len(parts) == 2:
            if r.method == "POST":
                p = r.params
                pair = (
                    str(p.get("source_lang", "")).lower(),
                    str(p.get("target_lang", "")).lower(),
                )
                if pair not in GLOSSARY_PAIRS:
                    return 400, {"message": "Unsupported glossary source and target language pair"}
                entries = dict(
                    line.split("\t" if p.get("entries_format", "tsv") == "tsv" else ",", 1)
                    for line in str(p.get("entries", "")).splitlines()
                    if line.strip()
                )
                gid = self.create_glossary(p["name"], p["source_lang"], p["target_lang"], entries)
                return 201, public_glossary(self.glossaries[gid])
            return 200, {"glossaries": [public_glossary(g) for g in self.glossaries.values()]}
        glossary = self.glossaries.get(parts[2])
        if glossary is None:
            return 404, {"message": "Glossary not found"}
        if len(parts) == 4:
            return 200, glossary["entries"].encode()
        if r.method == "DELETE":
            del self.glossaries[parts[2]]
            return 204, b""
        return 200, public_glossary(glossary)


def public_glossary(glossary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in glossary.items() if k != "entries"}


def parse_body(raw: bytes, content_type: str, query: str) -> dict[str, Any]:
    """JSON (the deepl client) or form-encoded (wagtail-localize's translator, and GET
    /v2/languages whose ``type`` the client sends as a form body) into one dict."""
    params: dict[str, Any] = {}
    for source in (query, raw.decode() if "json" not in content_type else ""):
        for name, values in parse_qs(source, keep_blank_values=True).items():
            params[name] = values if name == "text" or len(values) > 1 else values[0]
    if raw and "json" in content_type:
        params.update(json.loads(raw))
    return params


@pytest.fixture
def fake_deepl():
    """A running FakeDeepL; ``.url`` is the SERVER_URL to give the translator."""
    with FakeDeepL() as fake:
        yield fake
