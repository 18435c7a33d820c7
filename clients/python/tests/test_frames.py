"""A history as a DataFrame: the conversion, checked against a minimal stand-in for pandas that
records what it is given (so it runs wherever the client does), and against pandas itself by
tests/pandas_check.py (run with an interpreter that has pandas by the integration suite)."""

import types
import unittest
from datetime import datetime, timezone
from decimal import Decimal

from pmb_client import parse_body, points_of, to_dataframe


class _Frame:
    """DataFrame.from_records as pandas documents it: records, the index column, the column order."""

    def __init__(self, records, index, columns):
        self.index = [r[index] for r in records]
        self.index_name = index
        self.columns = [c for c in columns if c != index]
        self.rows = [[r.get(c) for c in self.columns] for r in records]

    @classmethod
    def from_records(cls, records, index=None, columns=None):
        return cls(records, index, columns)


SHIM = types.SimpleNamespace(DataFrame=_Frame)

HISTORY = parse_body(
    {
        "data": {
            "ticker": "PMX-ELEC",
            "interval": "1h",
            "points": [
                {"t": "2026-09-01T01:00:00.000000Z", "indexLevel": "101.50000000", "stale": False},
                {"t": "2026-09-01T00:00:00.000000Z", "indexLevel": "100.00000001", "stale": True},
            ],
        },
        "meta": {},
    }
)


class FramesTest(unittest.TestCase):
    def test_one_row_per_point_indexed_by_aware_utc_t_oldest_first(self):
        frame = to_dataframe(HISTORY["data"], pandas=SHIM)
        self.assertEqual(frame.index_name, "t")
        self.assertEqual(frame.index, [datetime(2026, 9, 1, 0, tzinfo=timezone.utc), datetime(2026, 9, 1, 1, tzinfo=timezone.utc)])
        self.assertEqual(frame.columns, ["indexLevel", "stale"])
        self.assertEqual(frame.rows, [[Decimal("100.00000001"), True], [Decimal("101.50000000"), False]])

    def test_levels_stay_exact_decimals_unless_floats_are_asked_for(self):
        exact = to_dataframe(HISTORY["data"]["points"], pandas=SHIM)
        self.assertIsInstance(exact.rows[0][0], Decimal)
        floats = to_dataframe(HISTORY["data"], floats=True, pandas=SHIM)
        self.assertEqual(floats.rows[0][0], 100.00000001)
        self.assertIsInstance(floats.rows[0][0], float)

    def test_a_range_result_and_a_result_object_are_histories_too(self):
        result = types.SimpleNamespace(data=HISTORY["data"])
        self.assertEqual(len(points_of(result)), 2)
        self.assertEqual(len(points_of({"points": HISTORY["data"]["points"], "requests": 1})), 2)
        self.assertEqual(to_dataframe({"points": []}, pandas=SHIM).rows, [])

    def test_something_that_is_not_a_history_is_refused_with_a_clear_message(self):
        with self.assertRaisesRegex(ValueError, "not a history"):
            to_dataframe({"data": 1}, pandas=SHIM)
        with self.assertRaisesRegex(ValueError, "not a history"):
            to_dataframe("points", pandas=SHIM)


if __name__ == "__main__":
    unittest.main()
