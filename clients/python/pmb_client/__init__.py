"""PM Benchmarks API client: standard library only (urllib, decimal, datetime, json).

    from pmb_client import Client
    client = Client()  # PMB_API_KEY and PMB_BASE_URL from the environment
    latest = client.index_latest("PMX-ELEC")
    latest.data["indexLevel"]   # Decimal
    latest.data["computedAt"]   # aware UTC datetime
"""

from .client import Client, Quota, Result
from .errors import *  # noqa: F401,F403
from .errors import ERROR_CODES, __all__ as _error_names
from .parse import parse_body, parse_timestamp

__version__ = "1.0.0"
__all__ = ["Client", "Quota", "Result", "ERROR_CODES", "parse_body", "parse_timestamp", *_error_names]
