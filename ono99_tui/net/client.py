"""The client side of the protocol: connect, say hello, send and receive messages.

Used by `ono99 join`, the tests and the benchmark. Messages are plain dicts as in
docs/protocol.md; ``state`` views can be turned back into PlayerViews with
protocol.view_from_dict.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque

from ..text import shorten
from .protocol import (MAX_SERVER_LINE, READ_VIEW, REPLIES, VERSION, LineBuffer, ProtocolError, decode, encode,
                       view_from_dict)


class ServerError(Exception):
    """The server refused something; ``code`` says what kind of refusal (docs/protocol.md)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def why_not(exc: BaseException) -> str:
    """What a failed dial met, in words: "connection refused", not asyncio's "Connect call failed
    ('127.0.0.1', 7099)"."""
    import os

    import socket

    errno_ = getattr(exc, "errno", None)
    if isinstance(exc, socket.gaierror):  # (os.strerror(-2) is "unknown error -2")
        return f"no such host ({(exc.strerror or 'its name is not known').lower()})"
    if isinstance(exc, OSError) and errno_:
        return os.strerror(errno_).lower()
    if isinstance(exc, TimeoutError):
        return "no answer"
    return str(exc).rstrip(".") or type(exc).__name__


def host_port(host: str, port: int) -> str:
    """HOST:PORT as `ono99 join` reads it back: an IPv6 address in brackets ("::1:7099" is read as
    one IPv6 address, so a line naming it so could not be copied into a command)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Disconnected(ConnectionError):
    pass


class Silent(Disconnected):
    """The server stopped answering: silent past PING_AFTER, and no answer to a ping within
    PONG_WITHIN (a connection that died without a word, or a server stuck)."""


PING_AFTER = 15.0  # seconds of silence before the client asks the server whether it is still there
PONG_WITHIN = 10.0  # ...and how long it waits for the answer before it calls the server gone


def host_problem(host: str) -> str | None:
    """Why ``host`` cannot be a host name or address, or None. A part between dots longer than
    63 characters, or an empty one (a..b, .a), ended `ono99 join` in a traceback from the
    resolver's IDNA encoding; an address (1.2.3.4, ::1, fe80::1%eth0) is never a name's parts."""
    if ":" in host:
        return None  # (an IPv6 address: its own checks, the resolver's message)
    try:
        host.encode("idna")
    except UnicodeError:
        return "not a host name: each part between dots is 1 to 63 letters, digits or dashes"
    return None


def split_address(text: str, default_port: int) -> tuple[str, int]:
    """'host', 'host:port', '[::1]:port' -> (host, port); ValueError says what is wrong."""
    host, port = text, default_port
    if "://" in text:  # a web address: `ono99 web` is for a browser; join and watch take the table server's
        raise ValueError(f"{text!r}: give HOST or HOST:PORT of the table server, not a web address "
                         "(a game served by ono99 web is played in a browser)")
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ValueError(f"{text!r}: an IPv6 address goes in brackets, like [::1]:7099")
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"{text!r}: expected :PORT after the address")
            port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    elif ":" in text:  # a bare IPv6 address (its port the default), or a mistake like h:7099:5
        import ipaddress

        try:
            ipaddress.IPv6Address(text.split("%")[0])
        except ValueError:
            raise ValueError(f"{text!r}: give HOST or HOST:PORT, with one ':' (an IPv6 address goes in "
                             "brackets, like [::1]:7099)") from None
    if not host:
        raise ValueError(f"{text!r}: no host name")
    if (why := host_problem(host)) is not None:
        raise ValueError(f"{shorten(repr(text), 80)}: {why}")
    try:
        port = int(port)
    except ValueError:
        raise ValueError(f"{text!r}: the port must be a number") from None
    if not 0 < port < 65536:
        raise ValueError(f"{text!r}: the port must be 1 to 65535")
    return host, port


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self._lines = LineBuffer(MAX_SERVER_LINE)
        self._pending: deque[dict] = deque()
        self._ids = itertools.count(1)
        self.welcome: dict | None = None
        self._rules = None  # the table's, from the last full state (later states leave them out)
        self.password_unused = False
        self.address_said = ""

    @classmethod
    async def connect(cls, host: str, port: int, name: str, password: str | None = None,
                      token: str | None = None, timeout: float = 10.0, address: str | None = None) -> "Client":
        """Connect and say hello; ServerError if the server refuses (version, password, name)."""
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        client = cls(reader, writer)
        hello = {"type": "hello", "version": VERSION, "name": name}
        if password is not None:
            hello["password"] = password
        if token is not None:
            hello["token"] = token
        if address is not None:
            hello["address"] = address
        try:
            reply = await asyncio.wait_for(client.request(hello), timeout)
        except ProtocolError as exc:  # a web server, an SSH server, the wrong port: one clear line
            client.close()
            raise ServerError("not_ono99", f"{host_port(host, port)} does not answer as an ono99 table server "
                              f"({exc}): check the address and port") from None
        except BaseException:
            client.close()
            raise
        if reply.get("version") != VERSION:
            client.close()
            raise ServerError("version", f"the server speaks protocol version {reply.get('version')}, "
                              f"this client {VERSION}: use the same ono99 version on both sides")
        client.welcome = reply
        client.password_unused = password is not None and reply.get("password") is False
        client.address_said = host_port(host, port)
        return client

    def password_note(self) -> str | None:
        """One line when a password was given to a server that asks none (else None): it was
        not used, and this may not be the server meant, or its host forgot --password."""
        if not self.password_unused:
            return None
        return (f"{self.address_said} asks no password: the one given was not used (is this the "
                "server you meant? if so, its host may have forgotten --password)")

    def view(self, state: dict):
        """The PlayerView in a "state" message, read once: as it arrived (_read_one)."""
        view = state.get(READ_VIEW)
        if view is None:
            view = state[READ_VIEW] = view_from_dict(state["view"], self._rules)
            self._rules = view.rules
        return view

    def send(self, message: dict) -> None:
        self.writer.write(encode(message))

    async def recv(self) -> dict:
        """The next message from the server; Disconnected when the connection ends."""
        if self._pending:
            return self._pending.popleft()
        return await self._read_one()

    async def recv_or_ping(self) -> dict:
        """The next message; a server silent for PING_AFTER is asked whether it is still there, and
        one that does not answer within PONG_WITHIN raises Silent. (Waiting in the lobby, a server
        stuck or a connection dead without a word left "Waiting for players" up for good.)"""
        try:
            return await asyncio.wait_for(self.recv(), PING_AFTER)
        except TimeoutError:
            self.send({"type": "ping"})
        try:
            return await asyncio.wait_for(self.recv(), PONG_WITHIN)
        except TimeoutError:
            raise Silent("the server stopped answering") from None

    async def request(self, message: dict) -> dict:
        """Send ``message`` and wait for its reply (other messages meanwhile stay queued for recv);
        an error reply is raised as ServerError; no reply within PING_AFTER + PONG_WITHIN, as
        ServerError "silent" (a server stuck left "Connecting..." up until Escape)."""
        try:
            return await asyncio.wait_for(self._request(message), PING_AFTER + PONG_WITHIN)
        except TimeoutError:
            raise ServerError("silent", f"{self.address_said or 'the server'} did not answer for "
                              f"{PING_AFTER + PONG_WITHIN:.0f} s (stuck, or the connection is lost): "
                              "try again later") from None

    async def _request(self, message: dict) -> dict:
        msg_id = next(self._ids)
        self.send({**message, "id": msg_id})
        held: list[dict] = []
        try:
            while True:
                if self._pending:
                    reply = self._pending.popleft()
                else:
                    reply = await self._read_one()
                if reply.get("re") == msg_id or (reply["type"] == "error" and reply.get("code") in
                                                 ("version", "auth", "server_full")):
                    if reply["type"] == "error":
                        raise ServerError(reply.get("code", "error"), reply.get("message", "refused"))
                    kind, needs = REPLIES.get(message["type"], (reply["type"], ()))
                    if reply["type"] != kind or any(field not in reply for field in needs):
                        raise self.unreadable(ProtocolError("bad_message", f"{message['type']} was answered "
                                                            f"{reply['type']!r} without {', '.join(needs)}"
                                                            if reply["type"] == kind else
                                                            f"{message['type']} was answered {reply['type']!r}"))
                    return reply
                held.append(reply)
        finally:
            self._pending.extendleft(reversed(held))

    async def _read_one(self) -> dict:
        while not self._pending:
            data = await self.reader.read(65536)
            if not data:
                raise Disconnected("the server closed the connection")
            for line in self._lines.feed(data):
                try:
                    if line is None:
                        raise ProtocolError("too_long", "a line too long to read")
                    if line.strip():
                        message = decode(line)
                        if message["type"] == "state":
                            self.view(message)  # (read with the table's rules: a view without them needs them known)
                        self._pending.append(message)
                except ProtocolError as exc:
                    raise self.unreadable(exc) from None
        return self._pending.popleft()

    def unreadable(self, exc: ProtocolError) -> ProtocolError:
        """What the server sent that this client cannot read, in one line for its player (before
        the welcome as it is: Client.connect says the server does not answer as ono99)."""
        if self.welcome is None:
            return exc
        from .. import __version__

        return ProtocolError(exc.code, f"{self.address_said or 'the server'} sent a message this ono99 cannot read "
                             f"({exc}): it may run another version of ono99 (this is {__version__}), or not be an "
                             "ono99 table server; check the address, or ask its host")

    def close(self) -> None:
        self.writer.close()

    async def aclose(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except (ConnectionError, OSError):
            pass
