"""Client behaviour that needs a misbehaving server: a local HTTP server stands in for one."""

import json
import threading
import unittest
from datetime import datetime, timezone
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from pmb_client import Client, InternalError, NotFoundError, PmbError, RateLimitedError, UnavailableError, parse_body, parse_timestamp


class _Script(BaseHTTPRequestHandler):
    """Answers each request with the next scripted (status, headers, body)."""

    script = []
    seen = []

    def do_GET(self):  # noqa: N802 (http.server's naming)
        type(self).seen.append((self.path, self.headers.get("Authorization")))
        status, headers, body = type(self).script.pop(0)
        raw = json.dumps(body).encode()
        self.send_response(status)
        for k, v in {"Content-Type": "application/json", "X-Request-Id": f"req-{len(type(self).seen)}", **headers}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args):
        pass


def _error(code, status, message="m"):
    return {"error": {"code": code, "message": message, "docsUrl": f"http://x/docs/errors#{code}", "requestId": f"rid-{code}"}}


OK = (200, {}, {"data": {"indexLevel": "101.00000001", "computedAt": "2026-11-21T13:00:00.000000"}, "meta": {"generatedAt": "2026-11-21T13:00:01.000000Z"}})


class OfflineTest(unittest.TestCase):
    def setUp(self):
        _Script.script = []
        _Script.seen = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Script)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.waits = []
        self.client = Client("svc_live_test", f"http://127.0.0.1:{self.server.server_port}", sleep=self.waits.append, max_retries=3, max_retry_wait=30)

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()

    def test_a_503_with_retry_after_is_retried_after_exactly_that_many_seconds(self):
        _Script.script = [(503, {"Retry-After": "7"}, _error("unavailable", 503)), OK]
        result = self.client.get("/v1/x")
        self.assertEqual(self.waits, [7.0])
        self.assertEqual(result.data["indexLevel"], Decimal("101.00000001"))
        self.assertEqual(len(_Script.seen), 2)
        self.assertEqual(_Script.seen[0][1], "Bearer svc_live_test")

    def test_a_500_without_retry_after_backs_off_exponentially_then_raises_the_typed_error(self):
        _Script.script = [(500, {}, _error("internal_error", 500))] * 4
        with self.assertRaises(InternalError) as caught:
            self.client.get("/v1/x")
        self.assertEqual(self.waits, [1.0, 2.0, 4.0])
        self.assertEqual(caught.exception.request_id, "rid-internal_error")
        self.assertEqual(caught.exception.status, 500)

    def test_a_retry_after_beyond_the_cap_is_raised_at_once(self):
        _Script.script = [(429, {"Retry-After": "3600"}, _error("rate_limited", 429))]
        with self.assertRaises(RateLimitedError) as caught:
            self.client.get("/v1/x")
        self.assertEqual(self.waits, [])
        self.assertEqual(caught.exception.retry_after, 3600)

    def test_a_clamped_walk_never_asks_for_a_window_empty_at_the_apis_millisecond(self):
        # The API clamps the start to its own clock, read to the millisecond: the served window can
        # end within the millisecond of the walk's end. The next window would then start and end
        # at the same millisecond, which the API refuses (422 invalid_window).
        def page(effective_start):
            return (200, {}, {"data": {"ticker": "PMX-A", "interval": "1d", "count": 0, "points": []},
                              "meta": {"clamped": effective_start is not None, "effectiveStart": effective_start or "2026-08-26T14:33:32.123000Z"}})
        _Script.script = [page("2026-08-26T14:33:32.123000Z"), page(None), page(None), page(None), page(None)]
        pages = list(self.client.walk_index_history("PMX-A", "2020-01-01", end="2026-11-24T14:33:32.123456Z", window_days=30))
        self.assertEqual(len(pages), 4)  # the clamped one, then 30 + 30 + 30 days from where it was served
        for path, _ in _Script.seen:
            query = parse_qs(urlparse(path).query)
            self.assertLess(parse_timestamp(query["start"][0]), parse_timestamp(query["end"][0]))
            self.assertLess(query["start"][0][:23], query["end"][0][:23])  # also at the millisecond
        self.assertEqual(parse_qs(urlparse(_Script.seen[-1][0]).query)["end"][0], "2026-11-24T14:33:32.123000Z")

    def test_a_404_is_not_retried(self):
        _Script.script = [(404, {}, _error("not_found", 404))]
        with self.assertRaises(NotFoundError):
            self.client.get("/v1/x")
        self.assertEqual(len(_Script.seen), 1)

    def test_a_body_that_is_not_the_error_shape_still_raises_with_the_header_request_id(self):
        _Script.script = [(502, {}, "bad gateway")]
        with self.assertRaises(PmbError) as caught:
            self.client.get("/v1/x")
        self.assertEqual(caught.exception.code, "error")
        self.assertEqual(caught.exception.request_id, "req-1")

    def test_the_default_cap_waits_out_a_full_minute_window(self):
        # After a burst the minute window answers Retry-After: 61 (equal to X-RateLimit-Reset).
        waits = []
        client = Client("svc_live_test", f"http://127.0.0.1:{self.server.server_port}", sleep=waits.append)
        _Script.script = [(429, {"Retry-After": "61"}, _error("rate_limited", 429)), OK]
        result = client.get("/v1/x")
        self.assertEqual(waits, [61.0])
        self.assertEqual(result.data["indexLevel"], Decimal("101.00000001"))
        self.assertGreaterEqual(client.max_retry_wait, 65)

    def test_unavailable_exhausts_retries(self):
        _Script.script = [(503, {"Retry-After": "1"}, _error("unavailable", 503))] * 4
        with self.assertRaises(UnavailableError):
            self.client.get("/v1/x")
        self.assertEqual(self.waits, [1.0, 1.0, 1.0])


class ParseTest(unittest.TestCase):
    def test_timestamps_without_z_are_utc(self):
        self.assertEqual(parse_timestamp("2026-11-21T13:00:00.000000").tzinfo, timezone.utc)
        self.assertEqual(parse_timestamp("2026-11-21T13:00:00.000000"), parse_timestamp("2026-11-21T13:00:00.000000Z"))
        self.assertEqual(parse_timestamp("2026-11-21T14:00:00+01:00"), parse_timestamp("2026-11-21T13:00:00Z"))
        self.assertEqual(parse_timestamp("2026-11-21T13:00:00.123456Z").microsecond, 123456)

    def test_attr_delta_from_is_an_aware_utc_datetime(self):
        body = parse_body({"data": {"points": [{"attrDeltaFrom": "2026-11-21T12:00:00.000000", "attrDeltaFromPublished": True}, {"attrDeltaFrom": None}]}})
        first, second = body["data"]["points"]
        self.assertEqual(first["attrDeltaFrom"], datetime(2026, 11, 21, 12, tzinfo=timezone.utc))
        self.assertIs(first["attrDeltaFromPublished"], True)
        self.assertIsNone(second["attrDeltaFrom"])


if __name__ == "__main__":
    unittest.main()
