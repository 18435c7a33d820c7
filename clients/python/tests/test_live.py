"""The client against a running server: PMB_BASE_URL, PMB_API_KEY and PMB_LIMITED_KEY (a key
allowed one request a minute) come from the integration suite (tests/integration/clients)."""

import os
import unittest
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from pmb_client import (
    Client,
    InvalidApiKeyError,
    InvalidIntervalError,
    InvalidParameterError,
    InvalidWindowError,
    NotFoundError,
    RateLimitedError,
)

LIVE = bool(os.environ.get("PMB_BASE_URL") and os.environ.get("PMB_API_KEY"))
UTC = timezone.utc


def aware_utc(test, value):
    test.assertIsInstance(value, datetime)
    test.assertEqual(value.utcoffset(), timedelta(0))


@unittest.skipUnless(LIVE, "needs PMB_BASE_URL and PMB_API_KEY (run from the integration suite)")
class LiveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = Client()  # key and base address from the environment
        cls.index = cls.client.indices().data["indices"][0]["ticker"]
        cls.series = cls.client.volatility().data["series"][0]["ticker"]

    def test_service_reports_the_quota_that_the_headers_carry(self):
        result = self.client.service()
        key = result.data["key"]
        self.assertEqual(result.data["version"], "v1")
        self.assertEqual(result.quota.remaining_minute, key["remainingMinute"])
        self.assertEqual(result.quota.remaining_day, key["remainingDay"])
        self.assertEqual(result.quota.limit_minute, key["limitMinute"])
        self.assertEqual(self.client.quota, result.quota)
        self.assertGreater(result.quota.reset_minute, datetime.now(UTC) - timedelta(seconds=1))
        self.assertTrue(result.request_id)
        aware_utc(self, result.meta["generatedAt"])

    def test_index_latest_levels_are_decimals_and_timestamps_aware_utc(self):
        result = self.client.index_latest(self.index.lower())
        data = result.data
        self.assertIsInstance(data["indexLevel"], Decimal)
        self.assertEqual(data["baseIndexLevel"], Decimal("100"))
        self.assertEqual(data["ticker"], self.index)
        for field in ("computedAt", "inceptionAt"):
            aware_utc(self, data[field])

    def test_the_fields_without_z_become_aware_utc_datetimes(self):
        data = self.client.volatility_latest(self.series).data
        tick = data["tick"]
        aware_utc(self, tick["computedAt"])
        # the same instant as the catalog's lastComputedAt, which carries the Z
        catalog = {s["ticker"]: s for s in self.client.volatility().data["series"]}
        published = data["published"] or tick
        self.assertEqual(published["computedAt"], catalog[self.series]["lastComputedAt"])
        if tick["attribution"]["prevComputedAt"] is not None:
            aware_utc(self, tick["attribution"]["prevComputedAt"])
            self.assertLess(tick["attribution"]["prevComputedAt"], tick["computedAt"])
        observed = [c["observed_at"] for c in tick["components"] if c["observed_at"] is not None]
        self.assertTrue(observed)
        for value in observed:
            aware_utc(self, value)
            self.assertLessEqual(value, tick["computedAt"])

    def test_walking_index_history_window_by_window_equals_one_request(self):
        end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        start = end - timedelta(days=40)
        walked = self.client.index_history_range(self.index, start, end, interval="1h", window_days=7)
        single = self.client.index_history(self.index, start=start, end=end, interval="1h")
        self.assertEqual(walked["requests"], 6)
        self.assertFalse(walked["clamped"])
        self.assertEqual([p["t"] for p in walked["points"]], [p["t"] for p in single.data["points"]])
        self.assertEqual([p["indexLevel"] for p in walked["points"]], [p["indexLevel"] for p in single.data["points"]])
        self.assertTrue(walked["points"])

    def test_a_range_older_than_90_days_is_clamped_and_walked_from_the_window_served(self):
        walked = self.client.index_history_range(self.index, "2020-01-01", interval="1d", window_days=30)
        self.assertTrue(walked["clamped"])
        floor = datetime.now(UTC) - timedelta(days=90)
        self.assertLess(abs((walked["effective_start"] - floor).total_seconds()), 120)
        self.assertLessEqual(walked["requests"], 5)  # not one request per month since 2020
        trailing = self.client.index_history(self.index, interval="1d").data["points"]
        self.assertGreaterEqual(len(walked["points"]), len(trailing) - 1)
        for point in walked["points"]:
            self.assertGreaterEqual(point["t"], walked["effective_start"])

    def test_volatility_history_range_is_oldest_first_and_complete(self):
        start = datetime.now(UTC) - timedelta(days=10)
        result = self.client.volatility_history_range(self.series, start=start, include_gated=True)
        self.assertTrue(result["complete"])
        times = [p["t"] for p in result["points"]]
        self.assertEqual(times, sorted(times))
        self.assertGreater(len(times), 200)
        self.assertGreaterEqual(times[0], start)
        self.assertIsInstance(result["points"][0]["headlinePts"], float)

    def test_reconstitutions_volatility_history_and_downloads(self):
        events = self.client.reconstitutions(self.index, limit=3).data
        self.assertLessEqual(events["count"], 3)
        for event in events["events"]:
            aware_utc(self, event["completedAt"])
        history = self.client.volatility_history(self.series, limit=2)
        self.assertEqual(history.data["count"], 2)
        self.assertGreater(history.data["points"][0]["t"], history.data["points"][1]["t"])
        self.assertEqual(history.meta["historyMaxDays"], 90)
        self.assertTrue(self.client.downloads().data["latestManifestUrl"].startswith("http"))

    def test_errors_are_typed_by_code_and_carry_the_request_id(self):
        with self.assertRaises(NotFoundError) as caught:
            self.client.index_latest("NOPE-NOT-A-TICKER")
        self.assertEqual(caught.exception.status, 404)
        self.assertTrue(caught.exception.request_id)
        self.assertTrue(caught.exception.docs_url.endswith("/docs/errors#not_found"))
        with self.assertRaises(InvalidIntervalError):
            self.client.index_history(self.index, interval="5m")
        with self.assertRaises(InvalidWindowError):
            self.client.index_history(self.index, start="2026-01-02", end="2026-01-01")
        with self.assertRaises(InvalidParameterError):
            self.client.reconstitutions(self.index, limit=51)
        with self.assertRaises(InvalidApiKeyError) as caught:
            Client("svc_live_thisisnotakey").service()
        self.assertTrue(caught.exception.request_id)

    @unittest.skipUnless(os.environ.get("PMB_LIMITED_KEY"), "needs PMB_LIMITED_KEY")
    def test_a_429_waits_the_exact_retry_after_up_to_the_cap(self):
        waits = []
        client = Client(os.environ["PMB_LIMITED_KEY"], sleep=waits.append, max_retries=1, max_retry_wait=120)
        client.service()
        self.assertEqual(client.quota.remaining_minute, 0)
        with self.assertRaises(RateLimitedError) as caught:
            client.service()
        error = caught.exception
        self.assertTrue(1 <= error.retry_after <= 61)
        self.assertTrue(error.request_id)
        # one retry, after exactly Retry-After seconds (the fake sleep returns at once, so it fails again)
        self.assertEqual(len(waits), 1)
        self.assertTrue(abs(waits[0] - error.retry_after) <= 1)
        reset = client.quota.reset_minute
        self.assertLessEqual(abs((reset - datetime.now(UTC)).total_seconds() - error.retry_after), 2)
        # with a cap under Retry-After the error comes back at once
        capped = Client(os.environ["PMB_LIMITED_KEY"], sleep=waits.append, max_retry_wait=0)
        with self.assertRaises(RateLimitedError):
            capped.service()
        self.assertEqual(len(waits), 1)


if __name__ == "__main__":
    unittest.main()
