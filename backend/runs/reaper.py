"""The api's watch over runs in flight, in a thread of the api process.

- A running run whose worker has been silent past the heartbeat timeout ends `lost` (killed,
  machine off, network cut); its samples stay, and the drive's next run is dispatched.
- A run handed to its bench but not claimed, whose task the broker lost (Redis restarted
  without its data), is sent again.

Silence is measured only while the api could listen: after the api itself was not running (a
pause, a suspended machine, a starved process) or could not reach its database, every worker
gets one full timeout from the moment the api hears again before any run is marked lost.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from backend.core.db import transaction
from backend.core.deps import AppState
from backend.runs.queue import resend_lost_tasks
from backend.runs.worker_service import mark_lost_runs

log = logging.getLogger("drivelab.runs")


def check_interval(timeout_s: float) -> float:
    return max(1.0, min(10.0, timeout_s / 4))


class Reaper:
    def __init__(self, state: AppState) -> None:
        self.state = state
        self.timeout_s = state.settings.heartbeat_timeout_s
        self.interval_s = check_interval(self.timeout_s)
        # A tick later than this after the previous one means the api was not running.
        self.gap_s = self.interval_s + max(2.0, self.interval_s)
        self.resend_after = timedelta(seconds=max(5.0, 2 * self.interval_s))
        # The wall clock, as the heartbeats are: unlike the monotonic clock it also moves while
        # the machine is suspended, and a jump forward must not count as workers' silence.
        self._last_tick = time.time()
        # Since when the api has been listening without interruption (None: the database is
        # unreachable, so workers' reports fail).
        self._listening_since: float | None = self._last_tick

    def run(self, stop: threading.Event) -> None:
        while not stop.wait(self.interval_s):
            self.tick()

    def tick(self) -> None:
        now = time.time()
        self._note_own_gap(now)
        self._mark_lost(now)
        self._resend_lost_tasks()

    def _note_own_gap(self, now: float) -> None:
        gap = now - self._last_tick
        self._last_tick = now
        if gap > self.gap_s and self._listening_since is not None:
            log.warning(
                "the api was not running for %.0f s: workers get %.0f s to report again before "
                "any run is marked lost",
                gap - self.interval_s,
                self.timeout_s,
            )
            self._listening_since = now

    def _mark_lost(self, now: float) -> None:
        if self._listening_since is None:
            if not self._database_answers():
                return
            log.warning(
                "the database answers again: lost-run checks resume in %.0f s", self.timeout_s
            )
            self._listening_since = now
        if now - self._listening_since < self.timeout_s:
            return
        try:
            with transaction(self.state.sessions) as session:
                lost = mark_lost_runs(session, self.state, self.timeout_s)
        except Exception as exc:  # noqa: BLE001 - keep watching; the database may be restarting
            self._database_lost("lost-run check failed", exc)
            return
        for run_id in lost:
            log.warning("run %s lost: no word from its worker for %.0f s", run_id, self.timeout_s)

    def _database_lost(self, what: str, exc: Exception) -> None:
        """The database did not answer: workers' reports fail too until it does, so silence
        is not counted until then (see _mark_lost)."""
        if self._listening_since is not None:
            log.warning("%s, paused until the database answers: %s", what, exc)
        self._listening_since = None

    def _database_answers(self) -> bool:
        try:
            with self.state.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return True
        except Exception:  # noqa: BLE001
            return False

    def _resend_lost_tasks(self) -> None:
        try:
            with transaction(self.state.sessions) as session:
                resent = resend_lost_tasks(session, self.state, self.resend_after)
        except DBAPIError as exc:
            # Noticed here too: during the first timeout after the api starts, no lost-run
            # check runs, and workers' reports failing meanwhile must not count against them.
            self._database_lost("could not check for lost tasks", exc)
            return
        except Exception as exc:  # noqa: BLE001 - the broker may be restarting
            log.warning("could not check the broker for lost tasks: %s", exc)
            return
        for run_id in resent:
            log.warning(
                "run %s: the broker lost its task (Redis restarted without its data?): sent again",
                run_id,
            )
