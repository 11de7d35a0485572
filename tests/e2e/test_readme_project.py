"""The install steps (docs/getting-started.md), followed word for word on a new ``wagtail
start`` site.

The settings, URLs and commands come from the install steps' marked blocks (``readme_project``); the
test adds only what a person would do by hand: a page to translate, and, for step 7, a DeepL
server (the local fake, pointed to by ``SERVER_URL``: the one line of settings the README does
not have). The README's workers run as real ``db_worker`` processes, and the translated pages
are fetched under ``/fr/`` and ``/de/``: first in the pseudo translator's fake text (no key),
then, after step 7, in DeepL's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_deepl import FakeDeepL
from tests.readme_project import build_project, readme_blocks, readme_commands
from wagtail_bulk_translate.translators.pseudo import pseudo_localize

pytestmark = pytest.mark.e2e

TARGETS = ("fr", "de")
CREATE_PAGE = """
from home.models import HomePage
from wagtail.models import Page
home = Page.objects.get(depth=2).specific
home.add_child(instance=HomePage(title="Opening hours")).save_revision().publish()
"""
# What a visitor gets under each language prefix: the home page and the new page.
FETCH_PAGES = """
import json
from django.test import Client
from wagtail.models import Locale, Page
client = Client()
report = {}
for code in %r:
    locale = Locale.objects.get(language_code=code)
    pages = {}
    for source in Page.objects.filter(depth__gte=2, locale__language_code="en"):
        target = source.get_translation_or_none(locale)
        url = target.url if target and target.live else None
        response = client.get(url) if url else None
        pages[source.title] = {
            "url": url,
            "status": response.status_code if response else None,
            "html": response.content.decode() if response else "",
        }
    report[code] = pages
print(json.dumps(report))
"""


def manage(project: Path, env: dict, *args: str, timeout: float = 300) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, f"manage.py {args} exited {result.returncode}:\n{result}"
    return result.stdout


def start_worker(project: Path, env: dict, args: list[str], log: Path) -> subprocess.Popen:
    # Its own process group: with DEBUG the worker runs under Django's autoreloader, a child.
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=project,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop_worker(worker: subprocess.Popen) -> None:
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


@pytest.fixture
def fake_deepl():
    with FakeDeepL() as server:
        yield server


@pytest.fixture
def project(tmp_path) -> Path:
    return build_project(tmp_path / "mysite")


@pytest.fixture
def env() -> dict:
    skip = {"DJANGO_SETTINGS_MODULE", "DATABASE_URL", "PYTHONPATH", "DEEPL_AUTH_KEY"}
    return {name: value for name, value in os.environ.items() if name not in skip}


def run_with_workers(project: Path, env: dict, step: str) -> list[str]:
    """The README's workers started, the commands of ``step`` run, the workers stopped."""
    logs = [project / f"worker-{step}-{n}.log" for n in range(len(readme_commands("workers")))]
    workers = [
        start_worker(project, env, command, log)
        for command, log in zip(readme_commands("workers"), logs, strict=True)
    ]
    try:
        outputs = [manage(project, env, *command[1:]) for command in readme_commands(step)]
    finally:
        for worker in workers:
            stop_worker(worker)
    for log in logs:
        assert "Traceback" not in log.read_text(), log.read_text()
    return outputs


def fetch_pages(project: Path, env: dict) -> dict:
    # The last line: Django's shell may first say how many objects it imported.
    report = json.loads(
        manage(project, env, "shell", "-c", FETCH_PAGES % (TARGETS,)).splitlines()[-1]
    )
    for code in TARGETS:
        for title, page in report[code].items():
            assert page["url"] and page["url"].startswith(f"/{code}/"), (code, title, page)
            assert page["status"] == 200, (code, title, page["url"])
    assert set(report["fr"]) == {"Home", "Opening hours"}
    return report


def add_deepl_step_settings(project: Path, server_url: str) -> None:
    """Step 7's settings, as a person appends them, plus the fake server's address."""
    settings = project / "mysite" / "settings" / "base.py"
    server = f'WAGTAIL_BULK_TRANSLATE["TRANSLATOR"]["OPTIONS"] = {{"SERVER_URL": {server_url!r}}}'
    added = "\n\n".join(readme_blocks("deepl-settings"))
    settings.write_text(
        f"{settings.read_text()}\n# From docs/getting-started.md, step 7\n{added}\n{server}\n"
    )


def test_readme_install_steps_give_a_site_translated_under_fr_and_de(project, env, fake_deepl):
    setup = [manage(project, env, *command[1:]) for command in readme_commands("setup")]
    assert "Created locale fr (French)" in setup[-1]
    assert "Created locale de (German)" in setup[-1]
    manage(project, env, "check", "--fail-level", "WARNING")  # no key needed
    manage(project, env, "shell", "-c", CREATE_PAGE)

    # Steps 1-6: the pseudo translator, no key.
    outputs = run_with_workers(project, env, "first-run")
    assert "with PseudoTranslator" in outputs[-1] and "succeeded" in outputs[-1], outputs[-1]
    for code, pages in fetch_pages(project, env).items():
        for title, page in pages.items():
            assert pseudo_localize(title, code) in page["html"], (code, title)

    # Step 7: DeepL, the key in the environment of the workers and the commands.
    add_deepl_step_settings(project, fake_deepl.url)
    deepl_env = {**env, "DEEPL_AUTH_KEY": "readme-project-key"}  # the README's export
    outputs = run_with_workers(project, deepl_env, "deepl-run")
    assert "with DeepLTranslator" in outputs[-1] and "succeeded" in outputs[-1], outputs[-1]
    assert {r.target_lang for r in fake_deepl.translate_requests()} == {"FR", "DE"}
    for code, pages in fetch_pages(project, deepl_env).items():
        for title, page in pages.items():
            assert f"[{code.upper()}] {title.upper()}" in page["html"], (code, title)
