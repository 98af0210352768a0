"""RFC 6902 JSON Patch over plain JSON values (dict, list, str, int, float,
bool, None), with RFC 6901 pointers.

`apply_patch(doc, ops)` returns the patched document and never changes
`doc`; an invalid operation raises `PatchError` and nothing is changed.

Copy on write: only the containers on an operation's path are copied, so the
result shares every other value with `doc`. A toggle on a board of 1,000
sections copies the root, the sections list and one section. That is why
neither `doc` nor the result may be mutated in place: a mirror keeps each
rev's state cheaply only because they share.
"""
from __future__ import annotations

import copy
import re
from typing import Any, Dict, List, Sequence

JSON = Any

_INDEX = re.compile(r"(0|[1-9][0-9]*)\Z")
_BAD_ESCAPE = re.compile(r"~([^01]|\Z)")


class PatchError(ValueError):
    """An operation that cannot be applied; the document is left as it was."""


def json_equal(a: JSON, b: JSON) -> bool:
    """Equality as JSON means it: 1 equals 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(json_equal(v, b[k]) for k, v in a.items()))
    return type(a) is type(b) and a == b


def parse_pointer(pointer: Any) -> List[str]:
    if not isinstance(pointer, str):
        raise PatchError("path is not a string")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f'pointer "{pointer}" does not start with /')
    tokens = pointer[1:].split("/")
    for t in tokens:
        if _BAD_ESCAPE.search(t):
            raise PatchError(f'bad escape in "{pointer}"')
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


def _index(token: str, length: int, allow_end: bool) -> int:
    if allow_end and token == "-":
        return length
    if not _INDEX.match(token):
        raise PatchError(f'"{token}" is not an array index')
    i = int(token)
    if i > length or (not allow_end and i == length):
        raise PatchError(f"index {i} out of range")
    return i


def _child_key(node: JSON, token: str) -> Any:
    if isinstance(node, list):
        return _index(token, len(node), False)
    if isinstance(node, dict) and token in node:
        return token
    raise PatchError(f'path component "{token}" not found')


def _parent(doc: JSON, tokens: Sequence[str]) -> JSON:
    node = doc
    for t in tokens[:-1]:
        node = node[_child_key(node, t)]
    if not isinstance(node, (list, dict)):
        raise PatchError("parent is not a container")
    return node


def _get(doc: JSON, tokens: Sequence[str]) -> JSON:
    if not tokens:
        return doc
    p, t = _parent(doc, tokens), tokens[-1]
    if isinstance(p, list):
        return p[_index(t, len(p), False)]
    if t not in p:
        raise PatchError(f'"{t}" not found')
    return p[t]


class _Fresh:
    """The containers this patch made, which later operations may change in
    place. Holds them, so that no id() is reused while the patch runs."""

    def __init__(self) -> None:
        self._held: Dict[int, JSON] = {}

    def own(self, v: JSON) -> JSON:
        if id(v) in self._held:
            return v
        c = list(v) if isinstance(v, list) else dict(v)
        self._held[id(c)] = c
        return c


def _writable_path(doc: JSON, tokens: Sequence[str], fresh: _Fresh) -> "tuple[JSON, JSON]":
    """Copies the root and each container down to the last token's parent;
    returns (the new root, that parent)."""
    if not isinstance(doc, (list, dict)):
        raise PatchError("parent is not a container")
    root = node = fresh.own(doc)
    for t in tokens[:-1]:
        key = _child_key(node, t)
        child = node[key]
        if not isinstance(child, (list, dict)):
            raise PatchError("parent is not a container")
        owned = fresh.own(child)
        node[key] = owned
        node = owned
    return root, node


def _add(doc: JSON, tokens: Sequence[str], value: JSON, fresh: _Fresh) -> JSON:
    if not tokens:
        return value
    root, p = _writable_path(doc, tokens, fresh)
    t = tokens[-1]
    if isinstance(p, list):
        p.insert(_index(t, len(p), True), value)
    else:
        p[t] = value
    return root


def _remove(doc: JSON, tokens: Sequence[str], fresh: _Fresh) -> JSON:
    if not tokens:
        raise PatchError("cannot remove the whole document")
    _get(doc, tokens)  # fails before anything is copied
    root, p = _writable_path(doc, tokens, fresh)
    t = tokens[-1]
    if isinstance(p, list):
        del p[_index(t, len(p), False)]
    else:
        del p[t]
    return root


def _replace(doc: JSON, tokens: Sequence[str], value: JSON, fresh: _Fresh) -> JSON:
    _get(doc, tokens)
    if not tokens:
        return value
    root, p = _writable_path(doc, tokens, fresh)
    t = tokens[-1]
    p[_index(t, len(p), False) if isinstance(p, list) else t] = value
    return root


def _need(op: Dict[str, Any], field: str) -> Any:
    if field not in op:
        raise PatchError(f'"{op.get("op")}" needs "{field}"')
    return op[field]


def _apply_one(doc: JSON, op: Any, fresh: _Fresh) -> JSON:
    if not isinstance(op, dict):
        raise PatchError("operation is not an object")
    path_text = _need(op, "path")
    path = parse_pointer(path_text)
    kind = op.get("op")
    if kind == "add":
        return _add(doc, path, copy.deepcopy(_need(op, "value")), fresh)
    if kind == "remove":
        return _remove(doc, path, fresh)
    if kind == "replace":
        return _replace(doc, path, copy.deepcopy(_need(op, "value")), fresh)
    if kind == "move":
        from_text = _need(op, "from")
        source = parse_pointer(from_text)
        if from_text == path_text:
            _get(doc, source)
            return doc
        if path_text.startswith(from_text + "/"):
            raise PatchError("cannot move a value into itself")
        # Shared, not copied: nothing writes into it without copying it first.
        value = _get(doc, source)
        return _add(_remove(doc, source, fresh), path, value, fresh)
    if kind == "copy":
        value = copy.deepcopy(_get(doc, parse_pointer(_need(op, "from"))))
        return _add(doc, path, value, fresh)
    if kind == "test":
        if not json_equal(_get(doc, path), _need(op, "value")):
            raise PatchError(f'test failed at "{path_text}"')
        return doc
    raise PatchError(f'unknown op "{kind}"')


def apply_patch(doc: JSON, ops: Any) -> JSON:
    """The document after every operation of `ops`, or PatchError."""
    if not isinstance(ops, list):
        raise PatchError("a patch is an array of operations")
    fresh = _Fresh()
    out = doc
    for op in ops:
        out = _apply_one(out, op, fresh)
    return out
