"""A board's history, read over the HTTP API beside the WebSocket
(GET /api/boards/NAME/history): the protocol has no message for it."""
from __future__ import annotations

import asyncio
import urllib.parse
from typing import Any, Dict, Optional

from .errors import FoldError
from .http import HTTPError, fetch_json, http_base


async def fetch_history(ws_url: str, board: str, token: Optional[str], *, since: Optional[int] = None,
                        before: Optional[int] = None, limit: Optional[int] = None,
                        timeout: float = 10.0) -> Dict[str, Any]:
    params = {k: v for k, v in (("since", since), ("before", before), ("limit", limit)) if v is not None}
    url = f"{http_base(ws_url)}/api/boards/{urllib.parse.quote(board, safe='')}/history"
    if params:
        url += "?" + urllib.parse.urlencode(params)
    try:
        status, body = await fetch_json("GET", url, token=token, timeout=timeout)
    except (OSError, asyncio.TimeoutError, HTTPError) as e:
        raise FoldError("disconnected", f"GET {url} failed: {type(e).__name__}: {e}") from None
    if status == 200 and isinstance(body, dict):
        return body
    if isinstance(body, dict) and "code" in body:
        raise FoldError(str(body["code"]), str(body.get("message", "")), board)
    raise FoldError("internal", f"HTTP {status}", board)
