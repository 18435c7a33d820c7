"""Typed errors of the PM Benchmarks API, one class per ``error.code``."""

from __future__ import annotations

from typing import Optional

__all__ = [
    "PmbError",
    "InvalidApiKeyError",
    "RateLimitError",
    "IpRateLimitedError",
    "RateLimitedError",
    "DailyLimitReachedError",
    "NotFoundError",
    "MethodNotAllowedError",
    "ValidationError",
    "InvalidParameterError",
    "InvalidIntervalError",
    "InvalidWindowError",
    "ServerError",
    "InternalError",
    "UnavailableError",
    "error_for",
]


class PmbError(Exception):
    """A failure answered by the API. Match on the class or on ``code``, never on the message."""

    def __init__(
        self,
        code: str,
        status: int,
        message: str,
        docs_url: Optional[str] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[int] = None,
    ) -> None:
        suffix = f" [request {request_id}]" if request_id else ""
        super().__init__(f"{code} ({status}): {message}{suffix}")
        self.code = code
        self.status = status
        self.message = message
        self.docs_url = docs_url
        #: the response's X-Request-Id: quote it when reporting a problem
        self.request_id = request_id
        #: seconds from Retry-After (429, and 503 when sent)
        self.retry_after = retry_after


class InvalidApiKeyError(PmbError):
    pass


class RateLimitError(PmbError):
    """Any 429: wait ``retry_after`` seconds."""


class IpRateLimitedError(RateLimitError):
    pass


class RateLimitedError(RateLimitError):
    pass


class DailyLimitReachedError(RateLimitError):
    pass


class NotFoundError(PmbError):
    pass


class MethodNotAllowedError(PmbError):
    pass


class ValidationError(PmbError):
    """Any 422: the request's parameters are wrong."""


class InvalidParameterError(ValidationError):
    pass


class InvalidIntervalError(ValidationError):
    pass


class InvalidWindowError(ValidationError):
    pass


class ServerError(PmbError):
    """500 or 503: the client has already retried."""


class InternalError(ServerError):
    pass


class UnavailableError(ServerError):
    pass


_BY_CODE = {
    "invalid_api_key": InvalidApiKeyError,
    "ip_rate_limited": IpRateLimitedError,
    "rate_limited": RateLimitedError,
    "daily_limit_reached": DailyLimitReachedError,
    "not_found": NotFoundError,
    "method_not_allowed": MethodNotAllowedError,
    "invalid_parameter": InvalidParameterError,
    "invalid_interval": InvalidIntervalError,
    "invalid_window": InvalidWindowError,
    "internal_error": InternalError,
    "unavailable": UnavailableError,
    "error": PmbError,
}

#: every error.code of the API (the OpenAPI document's enum)
ERROR_CODES = tuple(_BY_CODE)


def error_for(code: str, status: int, message: str, **kwargs) -> PmbError:
    """The typed error for a failure; an unknown code (a newer API) becomes a plain PmbError."""
    if code not in _BY_CODE:
        code = "error"
    return _BY_CODE[code](code, status, message, **kwargs)
