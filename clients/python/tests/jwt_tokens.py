"""HS256 JWTs minted with the standard library (hmac, base64url, json), for
a daemon started with `--jwt-key HS256:FILE`."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import time
from typing import Any, Dict, Tuple


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint_jwt(key: bytes, lifetime: float, sub: str = "py") -> str:
    """A token for every board with every permission, expiring `lifetime`
    seconds from now (negative: already expired)."""
    header = {"alg": "HS256", "typ": "JWT"}
    claims: Dict[str, Any] = {"sub": sub, "exp": int(time.time() + lifetime),
                              "foldsync": {"*": ["read", "fold", "edit", "admin"]}}
    signing = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
    mac = hmac.new(key, signing.encode(), hashlib.sha256).digest()
    return f"{signing}.{b64url(mac)}"


def key_file() -> Tuple[bytes, str]:
    """A fresh 48-byte secret and the file holding it (the caller removes it)."""
    key = secrets.token_hex(24).encode()
    fd, path = tempfile.mkstemp(prefix="foldsync-py-jwt-", suffix=".key")
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key, path
