"""PM Benchmarks API client: standard library only (urllib, decimal, datetime, json).

    from pmb_client import Client
    client = Client()  # PMB_API_KEY and PMB_BASE_URL from the environment
    latest = client.index_latest("PMX-ELEC")
    latest.data["indexLevel"]   # Decimal
    latest.data["computedAt"]   # aware UTC datetime
    frame = client.index_history_frame("PMX-ELEC", start="2026-09-01")  # pandas DataFrame (pandas optional)
"""

from .client import Client, Quota, Result
from .errors import *  # noqa: F401,F403
from .errors import ERROR_CODES, __all__ as _error_names
from .frames import points_of, to_dataframe
from .parse import parse_body, parse_timestamp

__version__ = "1.0.0"
__all__ = ["Client", "Quota", "Result", "ERROR_CODES", "parse_body", "parse_timestamp", "to_dataframe", "points_of", *_error_names]
