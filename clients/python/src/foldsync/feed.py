"""One publisher, many readers: callbacks and async iterators. Used for the
connection's states and for each board's changes."""
from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Callable, Generic, List, TypeVar

T = TypeVar("T")
log = logging.getLogger("foldsync")
_END = object()


class Stream(Generic[T]):
    """Everything published after it was made, in order, until the feed
    ends. An abandoned stream is dropped with its last reference."""

    def __init__(self, feed: "Feed[T]") -> None:
        self._queue: "asyncio.Queue[object]" = asyncio.Queue()
        self._feed = feed

    def _push(self, item: object) -> None:
        self._queue.put_nowait(item)

    def __aiter__(self) -> "Stream[T]":
        return self

    async def __anext__(self) -> T:
        item = await self._queue.get()
        if item is _END:
            self._queue.put_nowait(_END)  # every later call ends too
            raise StopAsyncIteration
        return item  # type: ignore[return-value]

    async def aclose(self) -> None:
        self._feed._streams.discard(self)
        self._push(_END)


class Feed(Generic[T]):
    def __init__(self) -> None:
        self._streams: "weakref.WeakSet[Stream[T]]" = weakref.WeakSet()
        self._callbacks: List[Callable[[T], None]] = []
        self.ended = False

    def stream(self) -> Stream[T]:
        s: Stream[T] = Stream(self)
        if self.ended:
            s._push(_END)
        else:
            self._streams.add(s)
        return s

    def listen(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Calls `callback(item)` for each item; returns the function that stops it."""
        self._callbacks.append(callback)

        def stop() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)
        return stop

    def publish(self, item: T) -> None:
        for s in list(self._streams):
            s._push(item)
        for cb in list(self._callbacks):
            try:
                cb(item)
            except Exception:  # a reader's bug must not stop the connection
                log.exception("foldsync: a callback raised")

    def end(self) -> None:
        self.ended = True
        for s in list(self._streams):
            s._push(_END)
        self._streams = weakref.WeakSet()
