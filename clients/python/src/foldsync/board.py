"""One subscribed board: its mirrored state, its changes, and the actions on it.

What a message, a call or an answer means for the board (the first snapshot
answers `subscribe`, a later one is a resync whose reason says why, the
actions shown on top of `confirmed` and rolled back) is decided by the
session machine's own BoardEntry (board_entry.py), which the vectors pin;
the board hands its outputs to the application as `Change`s."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

from .board_entry import BoardEntry, Output
from .change import Change, Presence
from .errors import FoldError
from .feed import Feed, Stream

if TYPE_CHECKING:
    from .client import Client


class Board:
    def __init__(self, client: "Client", name: str) -> None:
        self.name = name
        self.viewers: Optional[int] = None    # from `presence`
        self.following: Optional[int] = None
        self._client = client
        self._entry = BoardEntry(name)  # the session's, once subscribed (client.py)
        self._feed: Feed[Change] = Feed()
        self._presence: Feed[Presence] = Feed()
        self._ready: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()

    # ---- what readers see ----

    @property
    def state(self) -> Any:
        """The board to show: `confirmed` with this client's actions that
        await their answer applied on top, in the order called; `confirmed`
        itself when none do (None after a deletion). Read-only: successive
        states share what did not change."""
        return self._entry.state

    @property
    def confirmed(self) -> Any:
        """The daemon's board document at `rev`, as GET /api/boards/NAME serves it."""
        return self._entry.mirror.state

    @property
    def rev(self) -> Optional[int]:
        """The rev of `confirmed`."""
        return self._entry.mirror.rev

    @property
    def pending(self) -> List[str]:
        """The keys of the actions shown on top of `confirmed` or still
        waiting for the confirmed board to reach their ack, in call order."""
        return self._entry.pending.keys

    @property
    def epoch(self) -> Optional[str]:
        return self._entry.mirror.epoch

    def changes(self) -> Stream[Change]:
        """Every change from now on, in rev order, until the client closes or
        the board is unsubscribed: `async for change in board.changes()`."""
        return self._feed.stream()

    def on_change(self, callback: Callable[[Change], None]) -> Callable[[], None]:
        """Calls `callback(change)` for each change; returns the function that stops it."""
        return self._feed.listen(callback)

    def on_presence(self, callback: Callable[[Presence], None]) -> Callable[[], None]:
        """Calls `callback(Presence(viewers, following))` whenever the daemon
        counts the board's viewers anew; returns the function that stops it."""
        return self._presence.listen(callback)

    # ---- actions: each resolves with the rev of its ack ----

    async def act(self, action: Dict[str, Any], *, if_rev: Optional[int] = None) -> int:
        """Any action (`{"type": "setTitle", "section": ..., "title": ...}`); `board` is filled in.
        With `if_rev` the daemon refuses it (`conflict`) unless the board is at exactly that rev."""
        message = dict(action, board=self.name)
        if if_rev is not None:
            message["ifRev"] = if_rev
        return await self._client._act(message, self)

    async def toggle(self, section: str, *, if_rev: Optional[int] = None) -> int:
        return await self.act({"type": "toggle", "section": section}, if_rev=if_rev)

    async def expand(self, section: str, *, if_rev: Optional[int] = None) -> int:
        return await self.act({"type": "expand", "section": section}, if_rev=if_rev)

    async def collapse(self, section: str, *, if_rev: Optional[int] = None) -> int:
        return await self.act({"type": "collapse", "section": section}, if_rev=if_rev)

    async def expand_all(self, *, if_rev: Optional[int] = None) -> int:
        return await self.act({"type": "expandAll"}, if_rev=if_rev)

    async def collapse_all(self, *, if_rev: Optional[int] = None) -> int:
        return await self.act({"type": "collapseAll"}, if_rev=if_rev)

    async def focus(self, section: str, item: int, *, if_rev: Optional[int] = None) -> int:
        return await self.act({"type": "focus", "section": section, "item": item}, if_rev=if_rev)

    async def clear_focus(self, *, if_rev: Optional[int] = None) -> int:
        return await self.act({"type": "clearFocus"}, if_rev=if_rev)

    async def revert(self, rev: int, *, if_rev: Optional[int] = None) -> int:
        """Undoes the change that made `rev`, as a new change."""
        return await self.act({"type": "revert", "rev": rev}, if_rev=if_rev)

    async def history(self, *, since: Optional[int] = None, before: Optional[int] = None,
                      limit: Optional[int] = None) -> Dict[str, Any]:
        """GET /api/boards/NAME/history: {"board", "epoch", "rev", "more", "entries"}."""
        return await self._client._history(self.name, since=since, before=before, limit=limit)

    async def unsubscribe(self) -> None:
        await self._client._unsubscribe(self)

    # ---- fed by the client ----

    def _tell(self, out: List[Output], epoch: Optional[str] = None) -> None:
        """Hands what the session machine said of this board to its readers;
        `epoch`: the one readers last saw (a deletion names it)."""
        for output in out:
            [(kind, body)] = output.items()
            if kind == "change":
                self._feed.publish(body)
            elif kind == "deleted":
                self._feed.publish(Change(self.name, epoch, None, None, None, deleted=True))
            elif kind == "presence":
                self.viewers, self.following = body["viewers"], body["following"]
                if isinstance(body["viewers"], int):
                    self._presence.publish(Presence(body["viewers"], body["following"]))
            elif kind == "ready":
                if not self._ready.done():
                    self._ready.set_result(None)
            elif kind == "refused":
                if not self._ready.done():
                    self._ready.set_exception(FoldError(body["code"], body["message"], self.name))

    def end(self) -> None:
        self._feed.end()
        self._presence.end()
        if not self._ready.done():
            self._ready.set_exception(FoldError("closed", "the client was closed"))
            self._ready.exception()  # retrieved: nobody may be waiting
