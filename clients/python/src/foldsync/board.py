"""One subscribed board: its mirrored state, its changes, and the actions on it.

The board turns the mirror's outcomes into `Change`s and decides what a
snapshot means: the first one answers `subscribe`; a later one is a resync,
whose reason says why (change.py). It shows the daemon's board (`confirmed`)
with this client's unanswered actions on top (`state`, pending_actions.py)."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

from .change import EPOCH, LAGGING, PRUNED, Change, Presence, RolledBack
from .errors import FoldError
from .feed import Feed, Stream
from .mirror import CHANGED, DELETED, OUT_OF_STEP, PRESENCE, BoardMirror
from .pending_actions import PendingActions

if TYPE_CHECKING:
    from .client import Client


class Board:
    def __init__(self, client: "Client", name: str) -> None:
        self.name = name
        self.viewers: Optional[int] = None    # from `presence`
        self.following: Optional[int] = None
        self._client = client
        self._mirror = BoardMirror(name)
        self._pending = PendingActions()
        self._shown: Any = None  # `confirmed` with the pending actions applied; `confirmed` itself when none apply
        self._feed: Feed[Change] = Feed()
        self._presence: Feed[Presence] = Feed()
        self._ready: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        self._seen_epoch: Optional[str] = None   # the epoch of the last state readers were given
        self._asked_since = False                # the subscribe in flight carried `since`
        self._deleted = False

    # ---- what readers see ----

    @property
    def state(self) -> Any:
        """The board to show: `confirmed` with this client's actions that
        await their answer applied on top, in the order called; `confirmed`
        itself when none do (None after a deletion). Read-only: successive
        states share what did not change."""
        return self._shown

    @property
    def confirmed(self) -> Any:
        """The daemon's board document at `rev`, as GET /api/boards/NAME serves it."""
        return self._mirror.state

    @property
    def rev(self) -> Optional[int]:
        """The rev of `confirmed`."""
        return self._mirror.rev

    @property
    def pending(self) -> List[str]:
        """The keys of the actions shown on top of `confirmed` or still
        waiting for the confirmed board to reach their ack, in call order."""
        return self._pending.keys

    @property
    def epoch(self) -> Optional[str]:
        return self._mirror.epoch

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

    def subscribe_message(self) -> Dict[str, Any]:
        """What to send to (re)subscribe: with `since` when there is a position to resume from."""
        position = self._mirror.position
        self._asked_since = position is not None
        m: Dict[str, Any] = {"type": "subscribe", "board": self.name}
        if position is not None:
            m["since"] = position
        return m

    def receive(self, m: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Takes one of the daemon's messages about this board; returns a
        subscribe to send when the copy fell out of step."""
        before = self._mirror.state
        outcome = self._mirror.apply(m)
        if outcome.kind == CHANGED and m.get("type") == "snapshot":
            self._reshow()
            self._snapshot()
        elif outcome.kind == CHANGED:
            self._asked_since = False
            if self._pending:
                self._pending.patched(before, self.confirmed, self.rev, m.get("by"), self._client.sessions)  # type: ignore[arg-type]
            self._reshow()
            self._publish(Change(self.name, self.epoch, self.rev, outcome.ops, self.state, by=m.get("by"),
                                 confirmed=self.confirmed))
        elif outcome.kind == OUT_OF_STEP:
            return self.subscribe_message()
        elif outcome.kind == PRESENCE:
            self.viewers, self.following = outcome.viewers, outcome.following
            if isinstance(outcome.viewers, int):
                self._presence.publish(Presence(outcome.viewers, outcome.following))
        elif outcome.kind == DELETED:
            self._gone()
        return None

    def _snapshot(self) -> None:
        asked_since, self._asked_since = self._asked_since, False
        if not self._ready.done():
            self._ready.set_result(None)
            self._seen_epoch = self.epoch
            return
        if self._deleted or self.epoch != self._seen_epoch:
            reason = EPOCH
        elif asked_since:
            reason = PRUNED
        else:
            reason = LAGGING
            self._client._answers_lost()
        self._deleted = False
        self._seen_epoch = self.epoch
        self._publish(Change(self.name, self.epoch, self.rev, None, self.state, resynced=True, reason=reason,
                             confirmed=self.confirmed))

    def refused(self, error: FoldError) -> None:
        """An `error` about this board with no action id: its subscribe was refused."""
        if not self._ready.done():
            self._ready.set_exception(error)
        elif error.code == "not_found" and not self._deleted:
            # Resubscribing found it gone: deleted while we were away.
            self._mirror.clear()
            self._gone()

    def called(self, key: str, message: Dict[str, Any]) -> None:
        """An action was put in the outbox with `key`: it is shown at once."""
        self._pending.add(key, message, message.get("ifRev"))
        if self._reshow():
            self._publish_local()

    def answered(self, key: str, message: Dict[str, Any], rev: Optional[int], error: Optional[BaseException]) -> None:
        """The outbox is done with the action: acknowledged at `rev`, or given
        up with `error` (the daemon's refusal, `expired`, `closed`), which
        rolls it back; the application is told of a rollback even when the
        state shown does not change."""
        if error is None and rev is not None:
            self._pending.acked(key, rev)
            if self._reshow():
                self._publish_local()
        elif self._pending.remove(key) is not None:
            self._reshow()
            fold = error if isinstance(error, FoldError) else FoldError("internal", str(error), self.name)
            action = {k: v for k, v in message.items() if k != "key"}
            self._publish_local(RolledBack(key, action, fold))

    def _reshow(self) -> bool:
        """Drops what the confirmed board now holds for good and computes the
        state shown; True when it differs from the one shown before."""
        self._pending.settle(self.rev)
        shown, self._shown = self._shown, self._pending.shown(self.confirmed, self.rev)
        return shown is not self._shown and shown != self._shown

    def _publish_local(self, rolled_back: Optional[RolledBack] = None) -> None:
        self._publish(Change(self.name, self.epoch, self.rev, None, self.state, confirmed=self.confirmed,
                             local=True, rolled_back=rolled_back))

    def _gone(self) -> None:
        self._deleted = True
        self._reshow()
        self._publish(Change(self.name, self._seen_epoch, None, None, None, deleted=True))

    def _publish(self, change: Change) -> None:
        self._feed.publish(change)

    def end(self) -> None:
        self._feed.end()
        self._presence.end()
        if not self._ready.done():
            self._ready.set_exception(FoldError("closed", "the client was closed"))
            self._ready.exception()  # retrieved: nobody may be waiting
