"""A small Debug Adapter Protocol client, for driving debugpy as VS Code does: the adapter
(`python -m debugpy.adapter --port P`) listens on a socket; the client sends requests and reads
responses and events, each a JSON body after a `Content-Length` header.

Only what a test needs: send a request, wait for its response, wait for an event by name.
Everything read is kept (`seen`), so a failing test can show what the adapter said.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any


class DapError(AssertionError):
    """The adapter answered a request with success false, or did not answer in time."""


class DapClient:
    def __init__(self, port: int, timeout: float = 120.0) -> None:
        self.timeout = timeout
        self.seen: list[dict[str, Any]] = []
        self._buffer = b""
        self._seq = 0
        deadline = time.monotonic() + 60
        while True:  # the adapter starts listening a moment after its process starts
            try:
                self._sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def close(self) -> None:
        self._sock.close()

    def send(self, command: str, **arguments: Any) -> int:
        """Send a request; its sequence number (wait for its answer with response())."""
        self._seq += 1
        body = json.dumps({"seq": self._seq, "type": "request", "command": command, "arguments": arguments}).encode()
        self._sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self._seq

    def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        """Send a request and wait for its response's body."""
        return self.response(self.send(command, **arguments))

    def response(self, seq: int) -> dict[str, Any]:
        message = self._wait(lambda m: m.get("type") == "response" and m.get("request_seq") == seq, f"the response to request {seq}")
        if not message.get("success"):
            raise DapError(f"{message.get('command')} failed: {message.get('message')}")
        return message.get("body") or {}

    def event(self, name: str) -> dict[str, Any]:
        """Wait for the next event `name` (an earlier one already read counts); its body."""
        return self._wait(lambda m: m.get("type") == "event" and m.get("event") == name, f"the event {name!r}").get("body") or {}

    def output(self) -> str:
        """What the program printed so far, as output events."""
        return "".join(
            m["body"].get("output", "") for m in self.seen if m.get("event") == "output" and m["body"].get("category") == "stdout"
        )

    def _wait(self, wanted: Any, what: str) -> dict[str, Any]:
        for message in self.seen:
            if wanted(message) and not message.get("_taken"):
                message["_taken"] = True
                return message
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            message = self._read()
            self.seen.append(message)
            if wanted(message):
                message["_taken"] = True
                return message
        raise DapError(f"no {what} in {self.timeout} s; the adapter said: {self.seen[-20:]}")

    def _read(self) -> dict[str, Any]:
        while b"\r\n\r\n" not in self._buffer:
            self._receive()
        header, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        length = int(next(line.split(b":")[1] for line in header.split(b"\r\n") if line.lower().startswith(b"content-length")))
        while len(self._buffer) < length:
            self._receive()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        return json.loads(body)

    def _receive(self) -> None:
        chunk = self._sock.recv(65536)
        if not chunk:
            raise DapError(f"the adapter closed the connection; it said: {self.seen[-20:]}")
        self._buffer += chunk
