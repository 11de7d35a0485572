import os
import signal

from django.apps import AppConfig

CRASH_POINTS = (
    "before_translate",
    "after_translate",
    "during_write",
    "slow_parent_write",
    "janitor_sweep",
    "poison",
    "batch_submit",
    "batch_ingest",
)
# How long "slow_parent_write" holds the write of an existing index page (between loading it and
# saving it), so other workers add children under it meanwhile.
SLOW_WRITE_SECONDS = 3


def crash_once(point: str) -> None:
    marker = os.path.join(os.environ["WBT_CRASH_DIR"], f"crashed-{point}")
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)


def slow_down_parent_writes() -> None:
    import time

    from demo.models import ArticleIndexPage
    from wagtail_bulk_translate.localize import target_writer

    original_ingest = target_writer.ingest_segments

    def ingest_segments(source, target, *args, **kwargs):
        result = original_ingest(source, target, *args, **kwargs)
        if isinstance(target, ArticleIndexPage) and target.pk is not None:
            time.sleep(SLOW_WRITE_SECONDS)
        return result

    target_writer.ingest_segments = ingest_segments


class CrashPointsConfig(AppConfig):
    name = "tests.e2e.crash_points"
    label = "crash_points"

    def ready(self) -> None:
        from wagtail_bulk_translate.engine import janitor, translate, write

        point = os.environ.get("WBT_CRASH_AT", "")
        if point not in CRASH_POINTS:
            raise RuntimeError(f"WBT_CRASH_AT must be one of {CRASH_POINTS}, not {point!r}")
        if point == "slow_parent_write":
            slow_down_parent_writes()
        elif point == "before_translate":
            original_call = translate.call_translator

            def call_translator(*args, **kwargs):
                crash_once(point)
                return original_call(*args, **kwargs)

            translate.call_translator = call_translator
        elif point == "after_translate":
            original_persist = translate.persist_translations

            def persist_translations(*args, **kwargs):
                original_persist(*args, **kwargs)
                crash_once(point)

            translate.persist_translations = persist_translations
        elif point == "poison":
            # Every write of one (object, locale) kills its worker: WBT_POISON is
            # "<translation key>:<language code>".
            original_poisoned_write = write.write_target
            poison = os.environ["WBT_POISON"]

            def poisoned_write_target(source, locale, **kwargs):
                if f"{source.object_id}:{locale.language_code}" == poison:
                    os.kill(os.getpid(), signal.SIGKILL)
                return original_poisoned_write(source, locale, **kwargs)

            write.write_target = poisoned_write_target
        elif point == "batch_submit":
            # The provider created the batch; the worker dies before its row says so.
            from wagtail_bulk_translate.translators.llm import LLMTranslator

            original_submit = LLMTranslator.submit_batch

            def submit_batch(self, *args, **kwargs):
                submitted = original_submit(self, *args, **kwargs)
                crash_once(point)
                return submitted

            LLMTranslator.submit_batch = submit_batch
        elif point == "batch_ingest":
            # The answers are written to the ledger, inside the ingesting transaction.
            from wagtail_bulk_translate.engine import batch_poll

            original_wake = batch_poll.wake_units

            def wake_units(batch):
                woken = original_wake(batch)
                crash_once(point)
                return woken

            batch_poll.wake_units = wake_units
        elif point == "janitor_sweep":
            original_acquire = janitor.acquire_janitor_lease

            def acquire_janitor_lease(*args, **kwargs):
                token = original_acquire(*args, **kwargs)
                if token is not None:
                    crash_once(point)  # the lease is taken, the next sweep not queued yet
                return token

            janitor.acquire_janitor_lease = acquire_janitor_lease
        else:
            original_write = write.write_target

            def write_target(*args, **kwargs):
                written = original_write(*args, **kwargs)
                crash_once(point)  # inside the unit's write transaction, before commit
                return written

            write.write_target = write_target
