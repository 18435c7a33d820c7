"""A history as a pandas DataFrame (optional: pandas is imported only when asked for one).

    from pmb_client import Client, to_dataframe
    frame = client.index_history_frame("PMX-ELEC", start="2026-09-01", interval="1h")
    frame = to_dataframe(client.volatility_history("PMX-VOL-FED"))

One row per point, indexed by ``t`` (aware UTC datetimes, oldest first); one column per field of
the points. Index levels stay ``Decimal`` (exact, as published) unless ``floats=True``; nested
fields (tenors, gate flags) stay as Python objects.
"""

from decimal import Decimal
from typing import Any, Dict, List, Mapping, Optional, Sequence

__all__ = ["to_dataframe", "points_of"]


def _load_pandas() -> Any:
    try:
        import pandas  # noqa: PLC0415 (optional dependency)
    except ImportError as error:  # pragma: no cover - depends on the machine
        raise ImportError("to_dataframe needs pandas: pip install pandas (or pip install 'pmb-client[pandas]')") from error
    return pandas


def points_of(history: Any) -> List[Mapping[str, Any]]:
    """The points of a history: a ``Result`` of index_history / volatility_history, the dict of
    index_history_range / volatility_history_range, or a list of points."""
    data = getattr(history, "data", history)
    if isinstance(data, Mapping):
        if "points" not in data:
            raise ValueError("not a history: no 'points' (pass index_history, volatility_history or a *_range result)")
        data = data["points"]
    if not isinstance(data, Sequence) or isinstance(data, (str, bytes)):
        raise ValueError("not a history: expected a list of points")
    return list(data)


def to_dataframe(history: Any, floats: bool = False, pandas: Optional[Any] = None) -> Any:
    """A DataFrame of a history's points, indexed by ``t`` and sorted oldest first.

    ``floats=True`` turns Decimal values into floats (for numerical work); by default they stay
    Decimal, exactly as published. ``pandas`` is the module to use (default: ``import pandas``).
    """
    pd = pandas if pandas is not None else _load_pandas()
    rows: List[Dict[str, Any]] = []
    columns: List[str] = []
    for point in points_of(history):
        row = {k: (float(v) if floats and isinstance(v, Decimal) else v) for k, v in point.items()}
        if "t" not in row:
            raise ValueError("a point without 't'")
        for k in row:
            if k not in columns:
                columns.append(k)
        rows.append(row)
    rows.sort(key=lambda r: r["t"])
    if "t" not in columns:
        columns.append("t")
    return pd.DataFrame.from_records(rows, index="t", columns=columns)

