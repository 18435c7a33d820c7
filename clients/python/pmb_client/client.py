"""Client of the PM Benchmarks API (/v1), standard library only."""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Union

from .errors import PmbError, RateLimitError, ServerError, error_for
from .frames import to_dataframe
from .parse import format_timestamp, parse_body, parse_timestamp

Time = Union[datetime, str]

_RETRYABLE = frozenset({429, 500, 503})
#: the default longest wait before a retry, in seconds: more than a full minute window (the
#: minute window's Retry-After is at most 61 s); a longer one (the day window) is raised at once
DEFAULT_MAX_RETRY_WAIT = 65.0
_USER_AGENT = "pmb-client-python/1.0"


@dataclass(frozen=True)
class Quota:
    """The calling key's quota, read from the X-RateLimit-* headers of a keyed response."""

    limit_minute: int
    remaining_minute: int
    #: when the minute window has room again (X-RateLimit-Reset)
    reset_minute: datetime
    limit_day: int
    remaining_day: int
    reset_day: datetime


@dataclass(frozen=True)
class Result:
    """One successful call: ``data`` and ``meta`` (parsed), the quota after it and the request id."""

    data: Any
    meta: Dict[str, Any]
    quota: Optional[Quota]
    request_id: Optional[str]


def _header_int(headers: Mapping[str, str], name: str) -> Optional[int]:
    raw = headers.get(name)
    if raw is None or not raw.strip().isdigit():
        return None
    return int(raw.strip())


def _quota(headers: Mapping[str, str]) -> Optional[Quota]:
    names = (
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "X-RateLimit-Limit-Day",
        "X-RateLimit-Remaining-Day",
        "X-RateLimit-Reset-Day",
    )
    values = [_header_int(headers, n) for n in names]
    if any(v is None for v in values):
        return None
    lm, rm, resm, ld, rd, resd = values  # type: ignore[misc]
    utc = timezone.utc
    return Quota(lm, rm, datetime.fromtimestamp(resm, utc), ld, rd, datetime.fromtimestamp(resd, utc))


def _as_datetime(value: Time) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if len(value) == 10:
        value = f"{value}T00:00:00"
    return parse_timestamp(value)


def _to_millisecond(value: datetime) -> datetime:
    """The time as the API reads it: to the millisecond."""
    return value.replace(microsecond=value.microsecond - value.microsecond % 1000)


class Client:
    """Client of the benchmark data API.

    Levels come back as ``Decimal``, timestamps as aware UTC ``datetime``, failures as typed
    errors (``PmbError`` subclasses carrying ``request_id``); 429, 500 and 503 are retried after
    Retry-After, up to ``max_retries`` times and never waiting longer than ``max_retry_wait``
    (default 65 s: a full minute window).
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        max_retries: int = 3,
        max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
        timeout: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        on_retry: Optional[Callable[[int, float, PmbError], None]] = None,
    ) -> None:
        api_key = api_key or os.environ.get("PMB_API_KEY")
        if not api_key:
            raise ValueError("no API key: pass api_key or set PMB_API_KEY")
        base_url = base_url or os.environ.get("PMB_BASE_URL")
        if not base_url:
            raise ValueError("no base address: pass base_url or set PMB_BASE_URL")
        self._api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.timeout = timeout
        self._sleep = sleep
        self._on_retry = on_retry
        #: the quota reported by the last keyed response (None before the first call)
        self.quota: Optional[Quota] = None

    # -- the nine endpoints -------------------------------------------------------------------

    def service(self) -> Result:
        """GET /v1: service index and the authoritative quota (counts as one request)."""
        return self.get("/v1")

    def indices(self) -> Result:
        """GET /v1/indices"""
        return self.get("/v1/indices")

    def index_latest(self, ticker: str) -> Result:
        """GET /v1/indices/{ticker}/latest"""
        return self.get(f"/v1/indices/{_segment(ticker)}/latest")

    def index_history(self, ticker: str, start: Optional[Time] = None, end: Optional[Time] = None, interval: Optional[str] = None) -> Result:
        """GET /v1/indices/{ticker}/history: one request; the API clamps it to the trailing 90 days."""
        return self.get(
            f"/v1/indices/{_segment(ticker)}/history",
            {"start": _opt_time(start), "end": _opt_time(end), "interval": interval},
        )

    def reconstitutions(self, ticker: str, limit: Optional[int] = None) -> Result:
        """GET /v1/indices/{ticker}/reconstitutions: newest first, limit 1 to 50 (default 20)."""
        return self.get(f"/v1/indices/{_segment(ticker)}/reconstitutions", {"limit": None if limit is None else str(limit)})

    def volatility(self) -> Result:
        """GET /v1/volatility"""
        return self.get("/v1/volatility")

    def volatility_latest(self, ticker: str) -> Result:
        """GET /v1/volatility/{ticker}/latest"""
        return self.get(f"/v1/volatility/{_segment(ticker)}/latest")

    def volatility_history(self, ticker: str, start: Optional[Time] = None, limit: Optional[int] = None, include_gated: Optional[bool] = None) -> Result:
        """GET /v1/volatility/{ticker}/history: newest first, limit 1 to 5000 (default 500)."""
        return self.get(
            f"/v1/volatility/{_segment(ticker)}/history",
            {
                "start": _opt_time(start),
                "limit": None if limit is None else str(limit),
                "includeGated": None if include_gated is None else ("true" if include_gated else "false"),
            },
        )

    def downloads(self) -> Result:
        """GET /v1/downloads: where the monthly snapshot bundles (full history) are."""
        return self.get("/v1/downloads")

    # -- history helpers ----------------------------------------------------------------------

    def walk_index_history(self, ticker: str, start: Time, end: Optional[Time] = None, interval: Optional[str] = None, window_days: float = 30) -> Iterator[Result]:
        """Index history over [start, end], one request per window of ``window_days``, oldest first.

        Only the trailing 90 days are served: an older start is clamped by the API (``meta["clamped"]``)
        and the walk continues from the window it served. Full history is in the snapshot bundles.
        The API reads times to the millisecond, so the walk works at that resolution: it never asks
        for a window that is empty there (start equal to end, which the API refuses).
        """
        if window_days <= 0:
            raise ValueError("window_days must be positive")
        step = timedelta(days=window_days)
        stop = _to_millisecond(_as_datetime(end) if end is not None else datetime.now(timezone.utc))
        frm = _to_millisecond(_as_datetime(start))
        while frm < stop:
            to = min(frm + step, stop)
            page = self.index_history(ticker, start=frm, end=to, interval=interval)
            yield page
            served = page.meta.get("effectiveStart")
            frm = _to_millisecond(served) if page.meta.get("clamped") and served is not None and served > to else to

    def index_history_range(self, ticker: str, start: Time, end: Optional[Time] = None, interval: Optional[str] = None, window_days: float = 30) -> Dict[str, Any]:
        """All points of ``walk_index_history`` in one list, oldest first, no duplicates at window edges."""
        points: List[Dict[str, Any]] = []
        clamped = False
        effective_start = None
        requests = 0
        served_interval = interval or "1d"
        for page in self.walk_index_history(ticker, start, end, interval, window_days):
            requests += 1
            served_interval = page.data["interval"]
            clamped = clamped or bool(page.meta["clamped"])
            if effective_start is None:
                effective_start = page.meta["effectiveStart"]
            for point in page.data["points"]:
                if not points or point["t"] > points[-1]["t"]:
                    points.append(point)
        return {
            "ticker": ticker.upper(),
            "interval": served_interval,
            "points": points,
            "clamped": clamped,
            "effective_start": effective_start,
            "requests": requests,
        }

    def volatility_history_range(self, ticker: str, start: Optional[Time] = None, end: Optional[Time] = None, include_gated: Optional[bool] = None) -> Dict[str, Any]:
        """Volatility history from ``start`` (default: the trailing 90-day window) to ``end``, oldest first.

        The endpoint takes no end and returns at most 5000 points newest first, so this asks for
        the maximum; ``complete`` is False when older points in the range were cut off.
        """
        limit = 5000
        page = self.volatility_history(ticker, start=start, limit=limit, include_gated=include_gated)
        stop = _as_datetime(end) if end is not None else None
        points = [p for p in page.data["points"] if stop is None or p["t"] <= stop]
        points.reverse()
        return {
            "series": page.data["series"],
            "points": points,
            "clamped": page.meta["clamped"],
            "effective_start": page.meta["effectiveStart"],
            "complete": page.data["count"] < limit,
        }

    def index_history_frame(self, ticker: str, start: Time, end: Optional[Time] = None, interval: Optional[str] = None, floats: bool = False) -> Any:
        """``index_history_range`` as a pandas DataFrame indexed by ``t`` (needs pandas; see ``to_dataframe``)."""
        return to_dataframe(self.index_history_range(ticker, start, end, interval), floats=floats)

    def volatility_history_frame(self, ticker: str, start: Optional[Time] = None, end: Optional[Time] = None, include_gated: Optional[bool] = None, floats: bool = False) -> Any:
        """``volatility_history_range`` as a pandas DataFrame indexed by ``t`` (needs pandas; see ``to_dataframe``)."""
        return to_dataframe(self.volatility_history_range(ticker, start, end, include_gated), floats=floats)

    # -- transport ----------------------------------------------------------------------------

    def get(self, path: str, query: Optional[Mapping[str, Optional[str]]] = None) -> Result:
        """One GET with retries; returns the parsed body or raises the typed error."""
        params = {k: v for k, v in (query or {}).items() if v is not None}
        url = f"{self.base_url}{path}"
        if params:
            url = f"{url}?{urllib.parse.urlencode(params)}"
        attempt = 0
        while True:
            status, headers, body = self._send(url)
            request_id = headers.get("X-Request-Id")
            quota = _quota(headers)
            if quota is not None:
                self.quota = quota
            if 200 <= status < 300 and isinstance(body, dict) and "data" in body:
                parsed = parse_body(body)
                return Result(parsed["data"], parsed.get("meta", {}), quota, request_id)
            error = _error(status, headers, body, request_id)
            wait = self._retry_wait(error, attempt)
            if wait is None:
                raise error
            attempt += 1
            if self._on_retry is not None:
                self._on_retry(attempt, wait, error)
            self._sleep(wait)

    def _send(self, url: str):
        request = urllib.request.Request(
            url,
            headers={"Authorization": f"Bearer {self._api_key}", "Accept": "application/json", "User-Agent": _USER_AGENT},
            method="GET",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.headers, _decode(response.read())
        except urllib.error.HTTPError as failure:
            with failure:
                return failure.code, failure.headers, _decode(failure.read())
        except (urllib.error.URLError, socket.timeout) as failure:
            raise ConnectionError(f"could not reach {self.base_url}: {failure}") from failure

    def _retry_wait(self, error: PmbError, attempt: int) -> Optional[float]:
        if error.status not in _RETRYABLE or attempt >= self.max_retries:
            return None
        if not isinstance(error, (RateLimitError, ServerError)) and error.code != "error":
            return None
        # Retry-After is exact: wait that long; without one, back off exponentially
        wait = float(error.retry_after) if error.retry_after is not None else min(2.0**attempt, self.max_retry_wait)
        return None if wait > self.max_retry_wait else wait


def _segment(ticker: str) -> str:
    return urllib.parse.quote(ticker, safe="")


def _opt_time(value: Optional[Time]) -> Optional[str]:
    return None if value is None else format_timestamp(value)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        return None


def _error(status: int, headers: Mapping[str, str], body: Any, request_id: Optional[str]) -> PmbError:
    detail = body.get("error") if isinstance(body, dict) else None
    detail = detail if isinstance(detail, dict) else {}
    return error_for(
        str(detail.get("code") or "error"),
        status,
        str(detail.get("message") or f"HTTP {status}"),
        docs_url=detail.get("docsUrl"),
        request_id=detail.get("requestId") or request_id,
        retry_after=_header_int(headers, "Retry-After"),
    )
