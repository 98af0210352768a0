"""Server-Sent Events (the WHATWG `text/event-stream` format), parsed from
text handed over piece by piece as it arrives; the stream transport
(stream_transport.py) feeds it GET /api/boards/NAME/events.

Lines end in LF, CRLF or CR, and a piece may end between the CR and the LF
of one line ending. `event:` names the event (default "message"), `data:`
lines are joined with "\\n", `id:` sets the last event id, which every later
event keeps until another `id:`; a line starting with ":" is a comment
(foldsyncd's heartbeat); a blank line dispatches the event, unless it has
no data. One space after the colon is dropped; a field without a colon has
an empty value; `retry:` and unknown fields are ignored.

Memory is bounded: a line, or an event's data, longer than `max_bytes`
characters raises SSEError (the stream is then given up, not read on)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

# A message may be as big on the stream as on the WebSocket (handshake.MAX_MESSAGE_BYTES).
MAX_EVENT_CHARS = 64 * 1024 * 1024


class SSEError(ValueError):
    pass


@dataclass(frozen=True)
class Event:
    type: str
    data: str
    id: str


class EventStreamParser:
    def __init__(self, max_chars: int = MAX_EVENT_CHARS) -> None:
        self.max_chars = max_chars
        self.comments = 0        # comment lines seen (heartbeats)
        self.last_event_id = ""
        self._buffer = ""
        self._scanned = 0        # no line ending in _buffer[:_scanned]
        self._pending_cr = False  # the last piece ended in CR: a LF opening the next belongs to it
        self._started = False    # a byte-order mark may open the stream, once
        self._type = ""
        self._data: List[str] = []
        self._data_chars = 0

    def push(self, text: str) -> List[Event]:
        """Takes the next piece of text; returns the events it completed."""
        if not self._started and text:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]
        if self._pending_cr and text.startswith("\n"):
            text = text[1:]
        if text:
            self._pending_cr = False
        self._buffer += text
        events: List[Event] = []
        buf = self._buffer
        start = 0
        pos = self._scanned
        while True:
            cr = buf.find("\r", pos)
            lf = buf.find("\n", pos)
            if cr < 0 and lf < 0:
                break
            end = lf if cr < 0 else cr if lf < 0 else min(cr, lf)
            line = buf[start:end]
            if buf[end] == "\r":
                if end + 1 < len(buf):
                    start = end + 2 if buf[end + 1] == "\n" else end + 1
                else:
                    start = end + 1
                    self._pending_cr = True
            else:
                start = end + 1
            pos = start
            event = self._line(line)
            if event is not None:
                events.append(event)
        self._buffer = buf[start:]
        self._scanned = len(self._buffer)
        if self._scanned > self.max_chars:
            raise SSEError(f"a line over {self.max_chars} characters")
        return events

    def _line(self, line: str) -> Optional[Event]:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._type = value
        elif field == "data":
            self._data_chars += len(value) + 1
            if self._data_chars > self.max_chars:
                raise SSEError(f"an event over {self.max_chars} characters")
            self._data.append(value)
        elif field == "id":
            if "\0" not in value:
                self.last_event_id = value
        # retry: the delay before reconnecting is the client's backoff, not the server's to set
        return None

    def _dispatch(self) -> Optional[Event]:
        kind, data = self._type or "message", self._data
        self._type, self._data, self._data_chars = "", [], 0
        if not data:
            return None
        return Event(kind, "\n".join(data), self.last_event_id)
