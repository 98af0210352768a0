"""Tokens: a string, or a function returning one (sync or async), asked at
every connect and on `authExpiring`."""
from __future__ import annotations

import inspect
from typing import Awaitable, Callable, Optional, Union

TokenFunction = Callable[[], Union[Optional[str], Awaitable[Optional[str]]]]
TokenSource = Union[None, str, TokenFunction]


class Tokens:
    def __init__(self, source: TokenSource) -> None:
        self._source = source
        # The token in use: HTTP requests (history) reuse it rather than
        # asking the function again.
        self.current: Optional[str] = source if isinstance(source, str) else None

    async def fetch(self) -> Optional[str]:
        if self._source is None or isinstance(self._source, str):
            return self._source
        value = self._source()
        if inspect.isawaitable(value):
            value = await value
        if value is not None and not isinstance(value, str):
            raise TypeError(f"the token function returned {type(value).__name__}, not str")
        self.current = value
        return value
