"""The address of a language-model server, checked: is it a well-formed ``http://host:port``, and is
it this computer?

An address that is not this computer (not a loopback address) is refused unless the researcher has
said, in plain words, that the texts may leave the computer; the checked address records which it
was, for the appendix.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from guiapp.core.errors import UserError

OLLAMA_PORT = 11434  # Ollama's default port
LLAMA_SERVER_PORT = 8080  # llama.cpp's llama-server's default port
DEFAULT_PORTS = {"ollama": OLLAMA_PORT, "openai": LLAMA_SERVER_PORT}

ADDRESS_HELP = (f"Type the server's address as http://host:port, e.g. http://127.0.0.1:{OLLAMA_PORT} "
                f"for Ollama or http://127.0.0.1:{LLAMA_SERVER_PORT} for llama.cpp's llama-server.")


@dataclass(frozen=True, slots=True)
class ServerAddress:
    """A checked server address. ``on_this_computer`` is True for a loopback address;
    ``texts_leave_computer`` is True when the researcher agreed that the texts are sent elsewhere."""

    url: str  # scheme://host:port, without a trailing slash
    host: str
    port: int
    on_this_computer: bool
    texts_leave_computer: bool

    def record(self) -> dict[str, object]:
        """What the appendix and results.json say of where the texts were sent."""
        return {"server_address": self.url, "on_this_computer": self.on_this_computer,
                "texts_leave_computer": self.texts_leave_computer}


def is_loopback_host(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and a ``localhost`` that resolves only to loopback addresses. Any
    other name counts as another computer (a name's address can change after this check)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    if host.lower().rstrip(".") != "localhost":
        return False
    try:
        found = socket.getaddrinfo(host, None)
    except OSError:
        return False
    addresses = {info[4][0].split("%")[0] for info in found}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


def check_server_address(address: str, protocol: str = "openai", *,
                         texts_may_leave_computer: bool = False) -> ServerAddress:
    """``address`` checked and taken apart. Without a port, the protocol's default port is used
    (Ollama 11434, llama-server 8080). A :class:`UserError` in plain words when the address is
    malformed, or when it is not this computer and ``texts_may_leave_computer`` is False."""
    text = (address or "").strip()
    if not text:
        raise UserError("No server address was given.", ADDRESS_HELP)
    if "://" not in text:
        text = "http://" + text
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as error:
        raise UserError(f"“{address}” is not a server address TextLab can read.", ADDRESS_HELP,
                        str(error)) from None
    if parts.scheme not in ("http", "https"):
        raise UserError(f"“{address}” does not start with http:// or https://.", ADDRESS_HELP)
    host = parts.hostname or ""
    if not host:
        raise UserError(f"“{address}” names no computer.", ADDRESS_HELP)
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise UserError(f"“{address}” holds more than a computer and a port.",
                        "Leave out the path (such as /v1) and anything after it. " + ADDRESS_HELP)
    if port is None:
        port = DEFAULT_PORTS.get(protocol, LLAMA_SERVER_PORT)
    if port == 0:
        raise UserError(f"“{address}” has port 0, which no server listens on.", ADDRESS_HELP)
    local = is_loopback_host(host)
    if not local and not texts_may_leave_computer:
        raise UserError(
            f"The server at {host} is not this computer: your texts would be sent to another computer.",
            "Use a server on this computer (e.g. http://127.0.0.1), or tick the box that says you agree "
            "that the texts leave this computer.")
    shown = f"[{host}]" if ":" in host else host
    return ServerAddress(url=f"{parts.scheme}://{shown}:{port}", host=host, port=port,
                         on_this_computer=local, texts_leave_computer=not local)
