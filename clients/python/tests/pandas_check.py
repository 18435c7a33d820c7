"""to_dataframe with pandas itself: run as `python3 tests/pandas_check.py` by an interpreter that
has pandas (the integration suite finds one); prints OK and exits 0 when the frame is right."""

import sys
from decimal import Decimal

import pandas

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0])
from pmb_client import parse_body, to_dataframe  # noqa: E402

history = parse_body(
    {
        "data": {
            "points": [
                {"t": "2026-09-01T01:00:00.000000Z", "indexLevel": "101.50000000", "stale": False},
                {"t": "2026-09-01T00:00:00.000000Z", "indexLevel": "100.00000001", "stale": True},
            ]
        },
        "meta": {},
    }
)["data"]

frame = to_dataframe(history)
assert isinstance(frame, pandas.DataFrame), type(frame)
assert isinstance(frame.index, pandas.DatetimeIndex), type(frame.index)
assert str(frame.index.tz) == "UTC", frame.index.tz
assert frame.index.name == "t"
assert [str(t) for t in frame.index] == ["2026-09-01 00:00:00+00:00", "2026-09-01 01:00:00+00:00"], list(frame.index)
assert list(frame.columns) == ["indexLevel", "stale"], list(frame.columns)
assert frame["indexLevel"].iloc[0] == Decimal("100.00000001")
floats = to_dataframe(history, floats=True)
assert floats["indexLevel"].dtype == "float64", floats["indexLevel"].dtype
assert abs(floats["indexLevel"].iloc[1] - 101.5) < 1e-12
print("OK pandas", pandas.__version__)
