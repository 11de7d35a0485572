"""The fake OpenAI server's Files and Batch APIs, driven by the official openai client."""

from __future__ import annotations

import json
import time

import openai
import pytest

from wagtail_bulk_translate.translators.pseudo import pseudo_localize

TEXTS = {"a": "Our garden shop is open on Sundays.", "b": "Spades and rakes.", "c": "Seeds."}


def chat_body(text: str, target: str = "de", model: str = "fake-model") -> dict:
    user = {"target_language": target, "documents": [{"items": [{"id": "1", "text": text}]}]}
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": "Translate."},
            {"role": "user", "content": json.dumps(user)},
        ],
        "response_format": {"type": "json_object"},
    }


def jsonl(texts: dict[str, str], url: str = "/v1/chat/completions", **body) -> bytes:
    lines = [
        {"custom_id": cid, "method": "POST", "url": url, "body": chat_body(text, **body)}
        for cid, text in texts.items()
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@pytest.fixture
def client(fake_openai):
    return openai.OpenAI(base_url=fake_openai.base_url, api_key="x", max_retries=0)


def submit(client, texts=TEXTS, metadata=None, endpoint="/v1/chat/completions", url=None):
    file = client.files.create(
        file=("requests.jsonl", jsonl(texts, url or endpoint)), purpose="batch"
    )
    return client.batches.create(
        input_file_id=file.id,
        endpoint=endpoint,
        completion_window="24h",
        metadata=metadata or {},
    )


def wait(client, batch_id, until=("completed", "expired", "failed", "cancelled"), bound=2.0):
    """The batch once its status is one of ``until``, polled for ``bound`` seconds at most."""
    deadline = time.monotonic() + bound
    while True:
        batch = client.batches.retrieve(batch_id)
        if batch.status in until:
            return batch
        assert time.monotonic() < deadline, f"still {batch.status}"
        time.sleep(0.02)


def results(client, file_id) -> dict[str, dict]:
    if file_id is None:
        return {}
    lines = client.files.content(file_id).text.splitlines()
    return {line["custom_id"]: line for line in map(json.loads, lines)}


def translation(entry: dict) -> str:
    content = entry["response"]["body"]["choices"][0]["message"]["content"]
    return json.loads(content)["translations"][0]["text"]


def test_a_batch_of_three_requests_is_answered_with_the_pseudo_translation(client, fake_openai):
    file = client.files.create(file=("requests.jsonl", jsonl(TEXTS)), purpose="batch")
    assert file.id.startswith("file-")
    assert (file.object, file.purpose, file.status) == ("file", "batch", "processed")
    assert (file.filename, file.bytes) == ("requests.jsonl", len(jsonl(TEXTS)))
    assert client.files.retrieve(file.id) == file
    assert client.files.content(file.id).content == fake_openai.files[file.id] == jsonl(TEXTS)

    batch = client.batches.create(
        input_file_id=file.id,
        endpoint="/v1/chat/completions",
        completion_window="24h",
        metadata={"run": "7"},
    )
    assert batch.id.startswith("batch_")
    assert (batch.object, batch.status) == ("batch", "validating")
    assert batch.endpoint == "/v1/chat/completions"
    assert (batch.input_file_id, batch.completion_window) == (file.id, "24h")
    assert batch.expires_at == batch.created_at + 24 * 3600
    assert batch.output_file_id is None and batch.metadata == {"run": "7"}
    assert fake_openai.batches_created == 1 and batch.id in fake_openai.batches

    done = wait(client, batch.id)
    assert done.status == "completed" and done.error_file_id is None
    assert done.completed_at and done.in_progress_at and done.errors is None
    assert done.request_counts.model_dump() == {"total": 3, "completed": 3, "failed": 0}
    output = client.files.retrieve(done.output_file_id)
    assert (output.purpose, output.filename) == ("batch_output", f"{batch.id}_output.jsonl")

    lines = [json.loads(line) for line in client.files.content(output.id).text.splitlines()]
    assert [line["custom_id"] for line in lines] != list(TEXTS)  # OpenAI keeps no order
    answers = {line["custom_id"]: line for line in lines}
    assert set(answers) == set(TEXTS)
    for custom_id, text in TEXTS.items():
        entry = answers[custom_id]
        assert entry["id"].startswith("batch_req_") and entry["error"] is None
        assert entry["response"]["status_code"] == 200
        assert entry["response"]["request_id"].startswith("req_")
        body = entry["response"]["body"]
        assert body["object"] == "chat.completion" and body["model"] == "fake-model"
        assert translation(entry) == pseudo_localize(text, "de")
        usage = body["usage"]
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert done.usage.input_tokens == sum(
        e["response"]["body"]["usage"]["prompt_tokens"] for e in answers.values()
    )
    # The lines are recorded as the chat requests they are.
    assert sorted(r.custom_id for r in fake_openai.requests) == sorted(TEXTS)
    assert sorted(fake_openai.texts_sent()) == sorted(TEXTS.values())
    assert {r.batch_id for r in fake_openai.requests} == {batch.id}

    client.files.delete(file.id)
    assert file.id not in fake_openai.files
    with pytest.raises(openai.NotFoundError):
        client.files.retrieve(file.id)


def test_a_batch_stays_in_progress_until_its_delay_has_passed(client, fake_openai):
    fake_openai.batch_delay = 0.2
    started = time.monotonic()
    batch = submit(client)
    assert client.batches.retrieve(batch.id).status == "in_progress"
    assert fake_openai.requests == []  # nothing answered yet
    done = wait(client, batch.id)
    assert done.status == "completed" and time.monotonic() - started >= 0.2
    assert len(results(client, done.output_file_id)) == 3


def test_an_expired_batch_answers_only_the_first_half(client, fake_openai):
    fake_openai.batch_outcome("expired")
    texts = {f"r{i}": f"Text number {i}." for i in range(4)}
    done = wait(client, submit(client, texts).id)
    assert done.status == "expired" and done.expired_at and done.completed_at is None
    assert set(results(client, done.output_file_id)) == {"r0", "r1"}
    assert done.error_file_id is None  # the others are nowhere: to resubmit
    assert done.request_counts.model_dump() == {"total": 4, "completed": 2, "failed": 0}
    # Only for that batch:
    assert wait(client, submit(client, texts).id).status == "completed"


def test_a_failed_batch_says_why_and_answers_nothing(client, fake_openai):
    fake_openai.batch_outcome("failed")
    batch = submit(client)
    done = wait(client, batch.id)
    assert done.status == "failed" and done.failed_at and done.in_progress_at is None
    assert done.output_file_id is None and done.error_file_id is None
    assert done.errors.object == "list"
    [error] = done.errors.data
    assert error.code == "token_limit_exceeded" and "Enqueued token limit" in error.message
    assert fake_openai.requests == []


def test_a_partial_batch_puts_its_failed_lines_in_the_error_file(client, fake_openai):
    fake_openai.batch_outcome("partial", failed_lines=2)
    done = wait(client, submit(client).id)
    assert done.status == "completed"
    assert done.request_counts.model_dump() == {"total": 3, "completed": 1, "failed": 2}
    assert set(results(client, done.output_file_id)) == {"c"}
    errors = results(client, done.error_file_id)
    assert set(errors) == {"a", "b"}
    for entry in errors.values():
        assert entry["error"] is None
        assert entry["response"]["status_code"] == 500
        assert entry["response"]["body"]["error"]["type"] == "server_error"


def test_word_faults_reach_the_lines_that_carry_the_words(client, fake_openai):
    fake_openai.fault_on("rakes", "refusal")
    fake_openai.fault_on("Seeds", "context_length")
    done = wait(client, submit(client).id)
    answers, errors = results(client, done.output_file_id), results(client, done.error_file_id)
    assert set(answers) == {"a", "b"} and set(errors) == {"c"}
    refused = answers["b"]["response"]["body"]["choices"][0]["message"]
    assert refused["content"] is None and refused["refusal"].startswith("I'm sorry")
    assert errors["c"]["response"]["status_code"] == 400
    assert errors["c"]["response"]["body"]["error"]["code"] == "context_length_exceeded"


def test_every_batch_can_be_given_an_outcome(client, fake_openai):
    fake_openai.batch_outcome("failed", every=True, code="quota", message="No more.")
    for _ in range(2):
        done = wait(client, submit(client).id)
        assert (done.status, done.errors.data[0].code) == ("failed", "quota")
    fake_openai.batch_outcome("completed", every=True)
    assert wait(client, submit(client).id).status == "completed"


def test_a_cancelled_batch_is_cancelling_then_cancelled(client, fake_openai):
    fake_openai.batch_delay = 60
    batch = submit(client)
    cancelling = client.batches.cancel(batch.id)
    assert cancelling.status == "cancelling" and cancelling.cancelling_at
    cancelled = client.batches.retrieve(batch.id)
    assert cancelled.status == "cancelled" and cancelled.cancelled_at
    assert cancelled.output_file_id is None and fake_openai.requests == []
    with pytest.raises(openai.ConflictError, match="Cannot cancel"):
        client.batches.cancel(batch.id)


def test_the_list_of_batches_pages_newest_first_and_finds_one_by_metadata(client, fake_openai):
    fake_openai.batch_delay = 60
    ids = [submit(client, metadata={"run": str(n)}).id for n in range(5)]
    page = client.batches.list(limit=2)
    assert [b.id for b in page.data] == ids[::-1][:2] and page.has_more
    assert [b.id for b in page.data] == [page.first_id, page.last_id]
    assert [b.id for b in client.batches.list(limit=2)] == ids[::-1]  # auto-pagination
    found = [b for b in client.batches.list(limit=2) if (b.metadata or {}).get("run") == "1"]
    assert [b.id for b in found] == [ids[1]] and found[0].status == "in_progress"


TRUNCATED = b'{"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {\n'


@pytest.mark.parametrize(
    "content, words",
    [
        (TRUNCATED, "line 1 is not a JSON object"),
        (jsonl({"a": "x"}) + b"not json\n", "line 2 is not a JSON object"),
        (jsonl({"a": "x"}) + jsonl({"a": "y"}), "line 2 repeats the custom_id 'a'"),
        (jsonl({"a": "x"}, url="/v1/embeddings"), "line 1 has the url '/v1/embeddings'"),
        (b"", "no requests"),
    ],
    ids=["truncated", "not-json", "repeated-id", "other-url", "empty"],
)
def test_a_bad_input_file_is_refused(client, fake_openai, content, words):
    file = client.files.create(file=("requests.jsonl", content), purpose="batch")
    with pytest.raises(openai.BadRequestError, match=words) as caught:
        client.batches.create(
            input_file_id=file.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
    assert caught.value.body["param"] == "input_file_id"
    assert fake_openai.batches == {} and fake_openai.batches_created == 0


def test_an_unknown_file_or_a_wrong_endpoint_is_refused(client, fake_openai):
    with pytest.raises(openai.BadRequestError, match="input_file_id"):
        client.batches.create(
            input_file_id="file-nope", endpoint="/v1/chat/completions", completion_window="24h"
        )
    file = client.files.create(file=("requests.jsonl", jsonl(TEXTS)), purpose="batch")
    with pytest.raises(openai.BadRequestError) as caught:
        client.batches.create(
            input_file_id=file.id, endpoint="/v1/embeddings", completion_window="24h"
        )
    assert caught.value.body["param"] == "endpoint"
    assert caught.value.body["type"] == "invalid_request_error"
    with pytest.raises(openai.NotFoundError):
        client.batches.retrieve("batch_nope")
    with pytest.raises(openai.AuthenticationError):
        fake_openai.rejected_keys.add("x")
        client.files.retrieve(file.id)


def test_an_azure_client_creates_a_batch(fake_openai):
    azure = openai.AzureOpenAI(
        azure_endpoint=fake_openai.url, api_version="2024-10-21", api_key="x", max_retries=0
    )
    batch = submit(azure, endpoint="/chat/completions", metadata={"run": "az"})
    done = wait(azure, batch.id)
    assert done.status == "completed" and done.endpoint == "/chat/completions"
    assert set(results(azure, done.output_file_id)) == set(TEXTS)
    for _method, path, query in fake_openai.batch_api_calls:
        assert path.startswith("/openai/") and query == {"api-version": "2024-10-21"}
    assert fake_openai.requests[0].headers["api-key"] == "x"


def test_the_synchronous_chat_completions_are_still_served(client, fake_openai):
    completion = client.chat.completions.create(**chat_body("Spades."))
    content = json.loads(completion.choices[0].message.content)
    assert content["translations"][0]["text"] == pseudo_localize("Spades.", "de")
    assert fake_openai.batch_api_calls == []
