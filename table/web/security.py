"""The host's token and the limits on what a client may send.

The token is new each start (``secrets``), unless table.toml's ``[web] token`` sets one; it is compared in
constant time (:func:`hmac.compare_digest`). :class:`RateLimiter` is a token bucket per client address.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time

TOKEN_BYTES = 18  # 24 URL-safe characters


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_matches(given: str, token: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, None without one."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


class RateLimiter:
    """At most ``burst`` requests at once and ``rate`` a second after that, per client; ``allow`` says whether
    this one may go on (else the seconds until it may)."""

    def __init__(self, rate: float = 5.0, burst: int = 10, *, clients: int = 1024) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.clients = clients
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, client: str) -> float:
        """0.0 when the request may go on, else the seconds to wait."""
        now = time.monotonic()
        with self._lock:
            tokens, then = self._buckets.get(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                return (1.0 - tokens) / self.rate
            if len(self._buckets) >= self.clients and client not in self._buckets:
                self._buckets.clear()  # forget the idle; a flood of addresses must not grow this without end
            self._buckets[client] = (tokens - 1.0, now)
            return 0.0
