"""``--web [HOST:]PORT``: where the table page listens, and the URLs printed for it.

The host defaults to 127.0.0.1 (this machine only); the phones at the table need the address given
(``--web 0.0.0.0:8080`` listens on every interface). Port 0 lets the system choose one.
"""

from __future__ import annotations

import argparse
import socket
from dataclasses import dataclass

from table.web.errors import AddressError

DEFAULT_HOST = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class WebAddress:
    host: str
    port: int

    @property
    def url_host(self) -> str:
        """The host as a URL names it: the machine's own name for a wildcard, brackets around IPv6."""
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = _own_address(ipv6=host == "::")
        return f"[{host}]" if ":" in host else host


def parse_address(text: str) -> WebAddress:
    """``8080``, ``0.0.0.0:8080``, ``[::1]:8080`` or ``localhost:0``; raises :class:`AddressError`."""
    text = text.strip()
    host, port_text = DEFAULT_HOST, text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or not text[end + 1 :].startswith(":"):
            raise AddressError(f"{text!r}: an IPv6 address is written [ADDRESS]:PORT")
        host, port_text = text[1:end], text[end + 2 :]
    elif ":" in text:
        host, _, port_text = text.rpartition(":")
        if ":" in host:
            raise AddressError(f"{text!r}: an IPv6 address is written [ADDRESS]:PORT")
    if not host:
        raise AddressError(f"{text!r}: the host before ':' is empty")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise AddressError(f"{text!r}: the port must be a number from 0 to 65535")
    return WebAddress(host, int(port_text))


def address_argument(text: str) -> WebAddress:
    """``parse_address`` for argparse (a bad address is a usage error, exit 2)."""
    try:
        return parse_address(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_web_argument(parser: argparse.ArgumentParser, what: str, *, linger: bool = True) -> None:
    parser.add_argument(
        "--web",
        type=address_argument,
        default=None,
        metavar="[HOST:]PORT",
        help=f"serve the table page ({what}) on this address (host default {DEFAULT_HOST}; docs/web.md)",
    )
    if linger:
        parser.add_argument(
            "--web-linger",
            type=float,
            default=None,
            metavar="SECONDS",
            help="with --web: after the game the page stays up this long (default: until Ctrl-C)",
        )


def bind(address: WebAddress) -> socket.socket:
    """A listening socket on ``address`` (port 0: one the system picks); raises :class:`AddressError`."""
    try:
        infos = socket.getaddrinfo(address.host, address.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise AddressError(f"{address.host}: {exc.strerror}") from None
    family, kind, proto, _, where = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(where)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise AddressError(f"cannot listen on {address.host}:{address.port}: {exc.strerror or exc}") from None
    sock.setblocking(False)
    return sock


def _own_address(*, ipv6: bool) -> str:
    """This machine's address for the URL of a server listening on every interface (found by name only:
    nothing is sent), or the loopback when it has none."""
    try:
        family = socket.AF_INET6 if ipv6 else socket.AF_INET
        for *_, where in socket.getaddrinfo(socket.gethostname(), None, family, socket.SOCK_STREAM):
            addr = str(where[0])
            if not addr.startswith(("127.", "::1")):
                return addr
    except OSError:
        pass
    return "::1" if ipv6 else "127.0.0.1"
