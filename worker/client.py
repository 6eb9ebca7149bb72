"""The worker's api client: bench token auth, retries, and an ordered outbox for samples.

Every worker post is idempotent on the api side (samples are keyed by step and time, step and
run reports are ignored once applied), so resending after a network failure is always safe.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from backend.runs.schemas import sample_columns

log = logging.getLogger("drivelab.worker.client")


class ApiError(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"api answered {status}: {detail}")
        self.status = status
        self.detail = detail


class ApiUnreachable(Exception):
    pass


class ApiClient:
    def __init__(
        self, base_url: str, token: str | None, *, timeout: float = 10.0, retry_for_s: float = 120.0
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout)
        self.retry_for_s = retry_for_s

    def close(self) -> None:
        self._http.close()

    def post(
        self, path: str, body: dict[str, Any] | None = None, *, retry_for_s: float | None = None
    ) -> Any:
        """POST with retries on network errors and 5xx; 4xx are final and raised as ApiError."""
        deadline = time.monotonic() + (self.retry_for_s if retry_for_s is None else retry_for_s)
        delay = 0.2
        while True:
            try:
                resp = self._http.post(path, json=body or {})
            except httpx.TransportError as exc:
                problem = f"{exc.__class__.__name__}: {exc}"
            else:
                if resp.status_code < 500:
                    return _decode(resp)
                problem = f"{resp.status_code}: {resp.text[:200]}"
            if time.monotonic() >= deadline:
                raise ApiUnreachable(f"api at {self.base_url} unreachable for {path}: {problem}")
            log.warning("api %s failed (%s); retrying in %.1f s", path, problem, delay)
            time.sleep(delay)
            delay = min(delay * 2, 5.0)

    def get(self, path: str) -> Any:
        return _decode(self._http.get(path))

    def get_bytes(self, path: str) -> bytes:
        resp = self._http.get(path)
        if resp.status_code >= 400:
            _decode(resp)
        return resp.content


def _decode(resp: httpx.Response) -> Any:
    if resp.status_code >= 400:
        try:
            detail = resp.json().get("detail", resp.text)
        except ValueError:
            detail = resp.text
        raise ApiError(resp.status_code, str(detail))
    if resp.status_code == 204 or not resp.content:
        return None
    return resp.json()


class SampleOutbox:
    """Posts sample batches in order, from its own thread: as soon as samples arrive (fio
    prints a snapshot a second, so the browser sees it within milliseconds, not up to a
    second later), at most once per `min_gap_s` (steps with 100 ms snapshots still post
    about once a second), and a heartbeat when nothing arrived for `interval_s`.

    fio's output is parsed without ever waiting for the network: batches queue here. While the
    api is unreachable they stay queued (and are mirrored to a spool file, which shows what is
    pending and which the next worker process sends if this one dies: `resend_spool`) and are
    resent in order when it answers again. `on_control` receives each reply (it says whether
    the reviewer cancelled the run).
    """

    def __init__(
        self,
        client: ApiClient,
        run_id: int,
        step_id: int,
        on_control: Callable[[dict[str, Any]], None],
        spool: Path | None = None,
        interval_s: float = 1.0,
    ) -> None:
        self.client = client
        self.run_id = run_id
        self.step_id = step_id
        self.on_control = on_control
        self.spool = spool
        self.interval_s = interval_s
        self._pending: deque[dict[str, Any]] = deque()
        self._progress: float | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.min_gap_s = interval_s * 0.9
        self._thread = threading.Thread(
            target=self._loop, daemon=True, name=f"outbox-{run_id}-{step_id}"
        )
        self._spooled = False
        self.error: Exception | None = None

    def start(self) -> None:
        self._thread.start()

    def add(self, samples: list[dict[str, Any]], progress: float | None) -> None:
        with self._lock:
            self._pending.extend(samples)
            if progress is not None:
                self._progress = progress
        self._wake.set()

    def close(self, timeout_s: float = 300.0) -> None:
        """Stop after everything queued was delivered (or the api stayed unreachable)."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout_s)
        if self.error is None and self._pending:
            self.error = ApiUnreachable(f"{len(self._pending)} samples could not be delivered")

    def _loop(self) -> None:
        # When the last batch of samples went out. A heartbeat does not count: a snapshot that
        # arrives just after one goes out at once, not min_gap_s later.
        last_batch = time.monotonic() - self.min_gap_s
        while True:
            self._wake.wait(self.interval_s)
            too_soon = last_batch + self.min_gap_s - time.monotonic()
            if too_soon > 0:
                self._stop.wait(too_soon)
            self._wake.clear()
            stopping = self._stop.is_set()
            started = time.monotonic()
            try:
                if self._flush():
                    last_batch = started
            except ApiError as exc:
                self.error = exc
                return
            except ApiUnreachable as exc:
                self._write_spool()
                if stopping:
                    self.error = exc
                    return
                continue
            if stopping:
                return

    def _flush(self) -> bool:
        """Post what is queued (a heartbeat when nothing is); whether samples went out."""
        with self._lock:
            batch = list(self._pending)
            progress = self._progress
        if batch:
            reply = self.client.post(
                f"/api/worker/runs/{self.run_id}/samples",
                {"step_id": self.step_id, "progress": progress, "columns": sample_columns(batch)},
                retry_for_s=5.0,
            )
        else:
            reply = self.client.post(
                f"/api/worker/runs/{self.run_id}/heartbeat",
                {"step_id": self.step_id, "progress": progress},
                retry_for_s=5.0,
            )
        with self._lock:
            for _ in range(len(batch)):
                self._pending.popleft()
        if self._spooled:
            log.info(
                "api answers again: run %s step %s is up to date (%d samples delivered)",
                self.run_id,
                self.step_id,
                len(batch),
            )
            self._spooled = False
        if self.spool is not None and self.spool.exists():
            self.spool.unlink()
        self.on_control(reply)
        return bool(batch)

    def _write_spool(self) -> None:
        if self.spool is None:
            return
        with self._lock:
            lines = [json.dumps({"step_id": self.step_id, **s}) for s in self._pending]
        self.spool.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.spool.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(self.spool)
        if not self._spooled:
            log.warning(
                "api unreachable: spooling the samples of run %s step %s to %s until it answers",
                self.run_id,
                self.step_id,
                self.spool,
            )
            self._spooled = True


class RunHeartbeat:
    """Tells the api that a run's worker is alive from the claim to the finish, every
    `interval_s`, whatever the worker is doing: a step's outbox reports only while its step
    runs, and between steps the worker holds and checks the target, reads SMART, records the
    host, puts the write cache back. On a slow bench (a guest under emulation, a drive that
    takes seconds to answer a SMART read, a busy host) that took longer than the api's timeout,
    and a run that was going well ended `lost`. Each reply goes to `on_control` (a cancel is
    seen between steps too). Silence still means what it should: the worker process is gone
    or cannot reach the api."""

    def __init__(
        self,
        client: ApiClient,
        run_id: int,
        on_control: Callable[[dict[str, Any]], None],
        interval_s: float = 5.0,
    ) -> None:
        self.client = client
        self.run_id = run_id
        self.on_control = on_control
        self.interval_s = interval_s
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name=f"alive-{run_id}")

    def __enter__(self) -> RunHeartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(15)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                reply = self.client.post(
                    f"/api/worker/runs/{self.run_id}/heartbeat", {}, retry_for_s=0
                )
            except ApiError as exc:
                # The run is no longer this worker's to report (it ended): nothing to say.
                log.info("run %s: heartbeats stop: %s", self.run_id, exc.detail)
                return
            except ApiUnreachable:
                continue  # said by the posts that carry the run's data; tried again next tick
            self.sent += 1
            self.on_control(reply)


_SPOOL_NAME = re.compile(r"^run-(\d+)-step-(\d+)\.jsonl$")


def resend_spool(client: ApiClient, spool_dir: Path) -> None:
    """Deliver the samples an earlier worker process spooled and never sent (it was killed or
    the machine lost power while the api was unreachable). The api takes them while the run is
    still running (samples are idempotent); once it has ended (lost) it refuses them, and they
    are dropped with a log line."""
    for path in sorted(spool_dir.glob("run-*-step-*.jsonl")):
        match = _SPOOL_NAME.match(path.name)
        if match is None:
            continue
        run_id, step_id = int(match[1]), int(match[2])
        samples = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        body = {"step_id": step_id, "columns": sample_columns(samples)}
        try:
            client.post(f"/api/worker/runs/{run_id}/samples", body, retry_for_s=10.0)
            log.info(
                "delivered %d spooled samples of run %s step %s", len(samples), run_id, step_id
            )
        except ApiError as exc:
            log.warning(
                "dropped %d spooled samples of run %s: %s", len(samples), run_id, exc.detail
            )
        except ApiUnreachable as exc:
            log.warning("kept the spooled samples of run %s for the next start: %s", run_id, exc)
            continue
        path.unlink()
