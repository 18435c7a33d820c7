"""Wire values to Python values: levels to Decimal, timestamps to aware UTC datetimes."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

#: fields that carry a timestamp; three come without "Z" and are UTC all the same
TIMESTAMP_FIELDS = frozenset(
    {
        "t",
        "computedAt",
        "lastComputedAt",
        "inceptionAt",
        "ceasedAt",
        "resolvedAt",
        "completedAt",
        "generatedAt",
        "effectiveStart",
        "effectiveEnd",
        "windowStart",
        "prevComputedAt",
        "observed_at",
        "anchorAt",
        "attrDeltaFrom",
    }
)
#: fields that carry an index level as a decimal string
DECIMAL_FIELDS = frozenset({"indexLevel", "baseIndexLevel"})

_TS = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d{1,6})?\d*(Z|[+-]\d{2}:?\d{2})?$", re.IGNORECASE)


def parse_timestamp(value: str) -> datetime:
    """An API timestamp as an aware UTC datetime.

    ``tick.computedAt``, ``attribution.prevComputedAt`` and ``components[].observed_at`` are UTC
    written without "Z": UTC is attached, never the local zone. Microseconds are kept.
    """
    match = _TS.match(value.strip())
    if not match:
        raise ValueError(f"not an ISO 8601 timestamp: {value!r}")
    date, time, fraction, zone = match.groups()
    text = f"{date}T{time}{(fraction or '.0').ljust(7, '0')}"
    zone = zone or "+00:00"
    if zone.upper() == "Z":
        zone = "+00:00"
    elif ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    return datetime.fromisoformat(text + zone).astimezone(timezone.utc)


def format_timestamp(value: Any) -> str:
    """A datetime (naive means UTC) or a string as the API's query format."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return str(value)


def parse_body(value: Any, key: str = "") -> Any:
    """Converts a decoded JSON body: levels to Decimal, timestamps to datetime, all else unchanged."""
    if isinstance(value, str):
        if key in DECIMAL_FIELDS:
            return Decimal(value)
        if key in TIMESTAMP_FIELDS:
            return parse_timestamp(value)
        return value
    if isinstance(value, list):
        return [parse_body(v, key) for v in value]
    if isinstance(value, dict):
        return {k: parse_body(v, k) for k, v in value.items()}
    return value
