"""Where `review serve` listens: loopback unless asked otherwise, a port given or any free one, and
the URL a browser opens. No textual-serve here: `review doctor` asks the same questions."""

from __future__ import annotations

import errno
import ipaddress
import socket

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class ServeError(Exception):
    """Why the server cannot start, in a sentence for the command line."""


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is this machine's loopback (127.0.0.0/8, ::1)."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    try:
        return bool(infos) and all(ipaddress.ip_address(str(info[4][0])).is_loopback for info in infos)
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host`:`port` (0: any free port), or ServeError saying why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        raise ServeError(f"cannot listen on {host!r}: {error.strerror or error}") from None
    family, kind, proto, _, address = infos[0]
    listening = socket.socket(family, kind, proto)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind(address)
        listening.listen(64)
    except OSError as error:
        listening.close()
        if error.errno == errno.EADDRINUSE:
            raise ServeError(
                f"port {port} on {host} is in use: pick another with --port, or --port 0 for any free one"
            ) from None
        raise ServeError(f"cannot listen on {host} port {port}: {error.strerror or error}") from None
    listening.setblocking(False)
    return listening


def url_for(listening: socket.socket, path: str) -> str:
    host, port = listening.getsockname()[:2]
    if host in ("0.0.0.0", "::"):
        # Bound to every address: the machine's name is what another one would type.
        host = socket.getfqdn()
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}{path}"
