"""A board's history, read over the HTTP API beside the WebSocket
(GET /api/boards/NAME/history): the protocol has no message for it."""
from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Optional

from .errors import FoldError


def http_base(ws_url: str) -> str:
    """http(s)://HOST[:PORT]/PREFIX for ws(s)://HOST[:PORT]/PREFIX/ws."""
    u = urllib.parse.urlsplit(ws_url)
    scheme = {"ws": "http", "wss": "https"}.get(u.scheme, u.scheme)
    path = u.path[:-3] if u.path.endswith("/ws") else u.path.rstrip("/")
    return urllib.parse.urlunsplit((scheme, u.netloc, path, "", ""))


def _get(url: str, token: Optional[str], timeout: float) -> Dict[str, Any]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            page: Dict[str, Any] = json.loads(r.read())
            return page
    except urllib.error.HTTPError as e:
        try:
            body = json.loads(e.read())
            raise FoldError(str(body["code"]), str(body.get("message", ""))) from None
        except (ValueError, KeyError, TypeError):
            raise FoldError("internal", f"HTTP {e.code}") from None
    except (OSError, ValueError) as e:
        raise FoldError("disconnected", str(e)) from None


async def fetch_history(ws_url: str, board: str, token: Optional[str], *, since: Optional[int] = None,
                        before: Optional[int] = None, limit: Optional[int] = None,
                        timeout: float = 10.0) -> Dict[str, Any]:
    params = {k: v for k, v in (("since", since), ("before", before), ("limit", limit)) if v is not None}
    url = f"{http_base(ws_url)}/api/boards/{urllib.parse.quote(board)}/history"
    if params:
        url += "?" + urllib.parse.urlencode(params)
    return await asyncio.get_running_loop().run_in_executor(None, _get, url, token, timeout)
