"""Worker processes started again when they exit, as systemd's ``Restart=always`` would.

A database restart makes ``db_worker`` exit (its loop does not survive a lost connection); the
demo's workers come back after a short pause, and stop for good when the demo ends.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence

RESTART_PAUSE_SECONDS = 2.0
STOP_TIMEOUT_SECONDS = 30.0


class Supervisor:
    """Runs each command, and runs it again ``RESTART_PAUSE_SECONDS`` after it exits."""

    def __init__(self, commands: Sequence[Sequence[str]]) -> None:
        self.commands = [list(command) for command in commands]
        self.processes: list[subprocess.Popen] = []
        self.restarts = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)

    def start(self) -> Supervisor:
        self.processes = [subprocess.Popen(command) for command in self.commands]
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop watching, then end every process (SIGTERM, SIGKILL after 30 s)."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()

    def _watch(self) -> None:
        while not self._stopping.wait(RESTART_PAUSE_SECONDS):
            for index, process in enumerate(self.processes):
                if process.poll() is not None and not self._stopping.is_set():
                    self.restarts += 1
                    self.processes[index] = subprocess.Popen(self.commands[index])
