"""The worker's api client: bench token auth, retries, and an ordered outbox for samples.

Every worker post is idempotent on the api side (samples are keyed by step and time, step and
run reports are ignored once applied), so resending after a network failure is always safe.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

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
    """Posts sample batches in order, about once a second, from its own thread.

    fio's output is parsed without ever waiting for the network: batches queue here. While the
    api is unreachable they stay queued (and are mirrored to a spool file, so an operator can
    see what is pending) and are resent in order when it answers again. `on_control` receives
    each reply (it says whether the reviewer cancelled the run).
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
        self._thread = threading.Thread(
            target=self._loop, daemon=True, name=f"outbox-{run_id}-{step_id}"
        )
        self.error: Exception | None = None

    def start(self) -> None:
        self._thread.start()

    def add(self, samples: list[dict[str, Any]], progress: float | None) -> None:
        with self._lock:
            self._pending.extend(samples)
            if progress is not None:
                self._progress = progress

    def close(self, timeout_s: float = 300.0) -> None:
        """Stop after everything queued was delivered (or the api stayed unreachable)."""
        self._stop.set()
        self._thread.join(timeout_s)
        if self.error is None and self._pending:
            self.error = ApiUnreachable(f"{len(self._pending)} samples could not be delivered")

    def _loop(self) -> None:
        while True:
            stopping = self._stop.wait(self.interval_s)
            try:
                self._flush()
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

    def _flush(self) -> None:
        with self._lock:
            batch = list(self._pending)
            progress = self._progress
        if batch:
            reply = self.client.post(
                f"/api/worker/runs/{self.run_id}/samples",
                {"step_id": self.step_id, "progress": progress, "samples": batch},
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
        if self.spool is not None and self.spool.exists():
            self.spool.unlink()
        self.on_control(reply)

    def _write_spool(self) -> None:
        if self.spool is None:
            return
        with self._lock:
            lines = [json.dumps({"step_id": self.step_id, **s}) for s in self._pending]
        self.spool.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.spool.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(self.spool)
