"""A Board driven message by message through the session machine, as the
client drives it, with no daemon and no socket: for the tests that pin what
one board tells its readers (test_board_pending.py, test_board_reasons.py)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from foldsync.board import Board
from foldsync.errors import FoldError
from foldsync.session import Session

SESSION = "me"  # the session of the connection: a patch `by` it may be one of our actions


class DrivenBoard:
    def __init__(self, name: str = "b", client: str = "c") -> None:
        self.session = Session(client)
        self.board = Board(None, name)  # type: ignore[arg-type]  # nothing here reaches for a client
        self.name = name
        self.sent: List[Dict[str, Any]] = []       # every message the session sent
        self.last_sent: List[Dict[str, Any]] = []  # what the last input made it send
        self._calls = 0
        self._feed({"start": {}})
        self._feed({"received": {"type": "hello", "session": SESSION}})
        self._feed({"subscribe": {"board": name}})
        entry = self.session.entry(name)
        assert entry is not None
        self.board._entry = entry

    def __getattr__(self, name: str) -> Any:
        return getattr(self.board, name)  # state, confirmed, rev, epoch, pending, on_change

    def _feed(self, input: Dict[str, Any]) -> List[Dict[str, Any]]:
        sent: List[Dict[str, Any]] = []
        for output in self.session.handle(input, 0.0):
            [(kind, body)] = output.items()
            if kind == "send":
                sent.append(body)
            elif kind in ("change", "deleted", "presence", "ready", "refused"):
                self.board._tell([output], self.board._entry.seen_epoch)
        self.sent.extend(sent)
        self.last_sent = sent
        return sent

    def receive(self, m: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """A daemon's message; returns the subscribe it made the session send, if any."""
        return next((s for s in self._feed({"received": m}) if s.get("type") == "subscribe"), None)

    def reconnect(self) -> Dict[str, Any]:
        """The connection drops and comes back: returns the board's subscribe on the new one."""
        self._feed({"closed": {"reason": "cut"}})
        self._feed({"retry": {}})
        sent = self._feed({"received": {"type": "hello", "session": SESSION}})
        return next(s for s in sent if s.get("type") == "subscribe")

    def called(self, key: str, message: Dict[str, Any]) -> None:
        """The application calls the action; its key must be the session's next."""
        self._calls += 1
        action = {k: v for k, v in message.items() if k not in ("board", "key", "ifRev")}
        self._feed({"act": {"call": self._calls, "board": self.name, "action": action, "ifRev": message.get("ifRev")}})
        assert self.session.called(self._calls) is None or self.session.called(self._calls)[1] == key

    def answered(self, key: str, rev: Optional[int], error: Optional[FoldError]) -> None:
        """The daemon's answer to the action sent with `key`."""
        if error is None:
            self._feed({"received": {"type": "ack", "id": key, "board": self.name, "rev": rev}})
        else:
            self._feed({"received": {"type": "error", "id": key, "board": self.name, "code": error.code,
                                     "message": error.message}})
