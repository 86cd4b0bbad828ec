"""Helpers for the table page's tests: a real server on a loopback port, read over real sockets."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    url: str, path: str, *, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None
) -> Reply:
    where = urlsplit(url)
    assert where.hostname is not None, url
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    finally:
        conn.close()


def post_input(url: str, payload: Any, token: str | None, **extra: str) -> Reply:
    headers = {"Content-Type": "application/json", **extra}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return request(url, "/api/input", method="POST", body=body, headers=headers)


@dataclass
class StreamReader:
    """A raw server-sent-events client on its own socket and thread, keeping every message it reads."""

    url: str
    messages: list[tuple[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        where = urlsplit(self.url)
        self.sock = socket.create_connection((where.hostname, where.port), timeout=10)
        self.sock.sendall(
            f"GET /api/stream HTTP/1.1\r\nHost: {where.netloc}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        raw = b""  # received, not yet decoded (a chunked body's incomplete chunk, or the head)
        text = b""  # the body, decoded, not yet split into messages
        head_done = False
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                raw += chunk
                if not head_done:
                    if b"\r\n\r\n" not in raw:
                        continue
                    head, raw = raw.split(b"\r\n\r\n", 1)
                    self.status = int(head.split()[1])
                    self.chunked = b"chunked" in head.lower()
                    head_done = True
                if self.chunked:
                    decoded, raw = _dechunk(raw)
                    text += decoded
                else:
                    text, raw = text + raw, b""
                events, text = _split_events(text)
                if events:
                    with self.lock:
                        self.messages.extend(events)
        except OSError:
            pass
        finally:
            self.closed.set()

    def kinds(self) -> list[str]:
        with self.lock:
            return [k for k, _ in self.messages]

    def of(self, kind: str) -> list[Any]:
        with self.lock:
            return [d for k, d in self.messages if k == kind]

    def wait_for(self, test: Callable[[], bool], timeout: float = 10.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if test():
                return True
            time.sleep(0.01)
        return test()

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def _dechunk(data: bytes) -> tuple[bytes, bytes]:
    """The complete chunks at the start of a chunked body, joined, and what is left after them."""
    out = b""
    while True:
        line_end = data.find(b"\r\n")
        if line_end < 0:
            return out, data
        size = int(data[:line_end].split(b";")[0] or b"0", 16)
        if len(data) < line_end + 2 + size + 2:
            return out, data
        out += data[line_end + 2 : line_end + 2 + size]
        data = data[line_end + 2 + size + 2 :]
        if size == 0:
            return out, data


def _split_events(text: bytes) -> tuple[list[tuple[str, Any]], bytes]:
    events = []
    while b"\n\n" in text:
        block, text = text.split(b"\n\n", 1)
        kind, data = "message", None
        for line in block.decode().splitlines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
        if data is not None:
            events.append((kind, data))
    return events, text


@pytest.fixture
def stream_reader() -> Iterator[Callable[[str], StreamReader]]:
    readers: list[StreamReader] = []

    def make(url: str) -> StreamReader:
        reader = StreamReader(url)
        readers.append(reader)
        return reader

    yield make
    for reader in readers:
        reader.close()
