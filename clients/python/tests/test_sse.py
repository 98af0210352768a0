"""The event-stream parser (foldsync.sse) on the WHATWG rules, text handed
over in pieces cut anywhere, as it comes off the network."""
from __future__ import annotations

import unittest
from typing import List

from foldsync.sse import Event, EventStreamParser, SSEError

DAEMON = ('event: snapshot\nid: e1:41\ndata: {"type":"snapshot","rev":41}\n\n'
          ': heartbeat\n\n'
          'event: patch\nid: e1:42\ndata: {"type":"patch","rev":42}\n\n')
EXPECTED = [Event("snapshot", '{"type":"snapshot","rev":41}', "e1:41"), Event("patch", '{"type":"patch","rev":42}', "e1:42")]


def parse(*pieces: str) -> List[Event]:
    p = EventStreamParser()
    return [e for piece in pieces for e in p.push(piece)]


class ParserTests(unittest.TestCase):
    def test_the_daemons_events_whole_and_cut_at_every_place(self) -> None:
        self.assertEqual(parse(DAEMON), EXPECTED)
        for cut in range(len(DAEMON) + 1):
            with self.subTest(cut=cut):
                self.assertEqual(parse(DAEMON[:cut], DAEMON[cut:]), EXPECTED)
        self.assertEqual(parse(*DAEMON), EXPECTED)  # one character at a time

    def test_every_line_ending_and_a_crlf_cut_in_two(self) -> None:
        for nl in ("\n", "\r\n", "\r"):
            text = DAEMON.replace("\n", nl)
            with self.subTest(nl=repr(nl)):
                self.assertEqual(parse(text), EXPECTED)
                self.assertEqual(parse(*text), EXPECTED)

    def test_fields(self) -> None:
        p = EventStreamParser()
        # Several data lines join with LF; one space after the colon is dropped, not two;
        # a field without a colon is empty; unknown fields and retry are ignored.
        got = p.push("data:a\ndata:  b\ndata\nretry: 10\nfoo: bar\n\n")
        self.assertEqual(got, [Event("message", "a\n b\n", "")])
        # The id holds for later events; an id with NUL is ignored; a comment counts.
        got = p.push("id: 7\ndata: x\n\n: hb\ndata: y\n\nid: a\0b\ndata: z\n\n")
        self.assertEqual([(e.data, e.id) for e in got], [("x", "7"), ("y", "7"), ("z", "7")])
        self.assertEqual(p.comments, 1)
        # No data: nothing dispatched, and the event type does not leak into the next one.
        self.assertEqual(p.push("event: patch\n\ndata: w\n\n"), [Event("message", "w", "7")])

    def test_a_byte_order_mark_opens_the_stream_once(self) -> None:
        # A second one is part of a field's name ("\ufeffdata"), unknown and ignored.
        self.assertEqual(parse("\ufeffdata: x\n\n", "\ufeffdata: y\n\n"), [Event("message", "x", "")])

    def test_bounded(self) -> None:
        p = EventStreamParser(max_chars=100)
        self.assertEqual(p.push("data: " + "x" * 50 + "\n\n"), [Event("message", "x" * 50, "")])
        with self.assertRaises(SSEError):
            p.push("data: " + "x" * 200)  # a line that never ends
        q = EventStreamParser(max_chars=100)
        with self.assertRaises(SSEError):
            q.push("data: " + "y" * 60 + "\n" + "data: " + "y" * 60 + "\n")  # an event that never ends
