"""The board's rules: `apply_action(board, action)` applies one action
message to a board document exactly as the daemon does (docs/PROTOCOL.md,
"Client to daemon"; the daemon's core, Sources/FoldCore/Actions), and
returns the board after it and whether it changed, or raises the
`FoldError` the daemon would answer with. Pure: no I/O, no state, and
neither argument is changed.

    board, changed = apply_action(state, {"type": "toggle", "section": "s1"})

- `board` is a document as the daemon serves it (`mode`, `sections`,
  optional `focus`). A value that is not one (a missing field, a wrong type)
  raises `ValueError`: the daemon never sends one. A `focus` that points at
  no item is dropped, as the daemon drops it when it loads a board.
- `action` is an action's wire message: `type` and its fields. `board`
  is not read; `id`, `ifRev` and `key` are checked as the daemon checks
  them (types, a key's bytes), but `ifRev` is compared with no rev: that
  needs the daemon.
- A no-op (expanding an expanded section, the same title, ...) returns the
  `board` given, unchanged, and `False`. A change returns a new document
  in the canonical shape (keys `mode`, `sections`, then `focus` when there
  is one; a section's `id`, `title`, `items`, `expanded`) and `True`. Its
  containers are new; item values are shared with `board` and `action`, so
  change neither in place.
- `revert` needs the board's history, which only the daemon holds: it is
  refused with `invalid`, as the daemon's core refuses it without history.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set, Tuple

from .errors import FoldError

__all__ = ["DEFAULT_LIMITS", "MAX_BADGE_BYTES", "Limits", "apply_action", "canonical_board"]

BAD_REQUEST = "bad_request"
UNKNOWN_TYPE = "unknown_type"
NOT_FOUND = "not_found"
INVALID = "invalid"


@dataclass(frozen=True)
class Limits:
    """The daemon's size limits (its flags `--max-sections` and so on, and the
    fixed JSON nesting depth); going over one is `invalid`. The defaults are
    the daemon's."""

    max_boards: int = 1_000
    max_sections: int = 5_000
    max_items: int = 10_000
    max_title_bytes: int = 1_024  # UTF-8 bytes per title
    max_item_bytes: int = 4_096  # encoded JSON bytes per item
    max_board_bytes: int = 4 * 1024 * 1024  # encoded bytes of a whole document
    max_json_depth: int = 32


DEFAULT_LIMITS = Limits()
#: A badge is a short tag: at most this many UTF-8 bytes (fixed, not a flag).
MAX_BADGE_BYTES = 64
MAX_KEY_BYTES = 64
_INT_MIN, _INT_MAX = -(2 ** 63), 2 ** 63 - 1

ACTION_TYPES = frozenset([
    "toggle", "expand", "collapse", "expandAll", "collapseAll",
    "setMode", "addSection", "removeSection", "moveSection", "setTitle", "setItems",
    "replace", "focus", "clearFocus", "revert",
])

_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}\Z")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*\Z")
_LINE_SEPARATORS = ("\u2028", "\u2029")
# Unicode's White_Space property.
_WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000")
_SCHEMES = frozenset(["http", "https", "mailto"])


# ---- JSON as the daemon counts it -------------------------------------------------------------

def _is_int(v: Any) -> bool:
    """An integer that fits the daemon's Int: not a bool, not 1.0."""
    return isinstance(v, int) and not isinstance(v, bool) and _INT_MIN <= v <= _INT_MAX


def _nfd(s: str) -> str:
    return s if s.isascii() else unicodedata.normalize("NFD", s)


def same_string(a: str, b: str) -> bool:
    """String equality as the daemon (Swift) has it: canonical equivalence,
    so "\u00e9" equals "e\u0301"."""
    return a == b or (not (a.isascii() and b.isascii()) and _nfd(a) == _nfd(b))


def _as_double(n: Any) -> float:
    try:
        return float(n)
    except OverflowError:
        return float("inf") if n > 0 else float("-inf")


def same_json(a: Any, b: Any) -> bool:
    """JSON equality as the daemon has it: numbers by value (1 equals 1.0,
    compared as doubles), true is not 1, objects in any member order,
    strings and member names by canonical equivalence."""
    if isinstance(a, str):
        return isinstance(b, str) and same_string(a, b)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)):
        return isinstance(b, (int, float)) and (a == b or _as_double(a) == _as_double(b))
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        if a.keys() != b.keys():
            by_name = {_nfd(k): v for k, v in b.items()}
            return all(_nfd(k) in by_name and same_json(v, by_name[_nfd(k)]) for k, v in a.items())
        return all(same_json(v, b[k]) for k, v in a.items())
    return a is None and b is None


def _utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def encoded_length(value: Any) -> int:
    """Bytes of the daemon's compact encoding of a JSON value: no whitespace,
    UTF-8, `"`, `\\` and control characters escaped, and U+2028/U+2029 as
    `\\u2028`/`\\u2029`. A number counts as Python writes it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    extra = 0
    for sep in _LINE_SEPARATORS:
        if sep in text:
            extra += 3 * text.count(sep)
    return _utf8_len(text) + extra


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether value nests deeper than limit (a scalar is 0 deep, a flat array
    or object 1), without walking further than limit + 1 levels."""
    if not isinstance(value, (dict, list)):
        return False
    if limit <= 0:
        return True
    children = value.values() if isinstance(value, dict) else value
    return any(_deeper_than(v, limit - 1) for v in children)


# ---- names, links, items ----------------------------------------------------------------------

def is_valid_name(s: str) -> bool:
    """Board names, section ids and item ids: 1-64 characters of [A-Za-z0-9_.-]."""
    return _NAME.match(s) is not None


def _forbidden_in_link(c: str) -> bool:
    u = ord(c)
    return (u <= 0x20 or 0x7F <= u <= 0x9F or c in _WHITE_SPACE
            or unicodedata.category(c) == "Cf")


def is_allowed_link(href: str) -> bool:
    """An item's `href`: an http(s) link with a host, or a mailto link, with no
    whitespace, control or invisible formatting character anywhere."""
    if any(_forbidden_in_link(c) for c in href):
        return False
    colon = href.find(":")
    if colon <= 0 or not _SCHEME.match(href[:colon]):
        return False
    scheme = href[:colon].lower()
    if scheme not in _SCHEMES:
        return False
    rest = href[colon + 1:]
    if scheme == "mailto":
        return rest != ""
    return len(rest) > 2 and rest.startswith("//") and rest[2] != "/"


def _check_title(title: str, limits: Limits) -> None:
    if _utf8_len(title) > limits.max_title_bytes:
        raise FoldError(INVALID, f"title longer than {limits.max_title_bytes} bytes")


def _check_items(items: List[Any], limits: Limits) -> None:
    if len(items) > limits.max_items:
        raise FoldError(INVALID, f"more than {limits.max_items} items")
    ids: Set[str] = set()
    for n, item in enumerate(items):
        if isinstance(item, str):
            pass
        elif isinstance(item, dict):
            _check_fields(item, n, ids)
            if _deeper_than(item, limits.max_json_depth):
                raise FoldError(INVALID, f"item {n} nested deeper than {limits.max_json_depth}")
        else:
            raise FoldError(BAD_REQUEST, f"item {n} must be a string or an object with a string 'label'")
        if encoded_length(item) > limits.max_item_bytes:
            raise FoldError(INVALID, f"item {n} larger than {limits.max_item_bytes} bytes")


def _check_fields(item: Dict[str, Any], n: int, ids: Set[str]) -> None:
    def field(name: str) -> Optional[str]:
        if name not in item:
            return None
        value = item[name]
        if not isinstance(value, str):
            raise FoldError(BAD_REQUEST, f"field '{name}' of item {n} must be a string")
        return value

    if field("label") is None:
        raise FoldError(BAD_REQUEST, f"field 'label' of item {n} must be a string")
    field("detail")
    href = field("href")
    if href is not None and not is_allowed_link(href):
        raise FoldError(INVALID, f"field 'href' of item {n} must be an http, https or mailto link")
    badge = field("badge")
    if badge is not None and _utf8_len(badge) > MAX_BADGE_BYTES:
        raise FoldError(INVALID, f"field 'badge' of item {n} is longer than {MAX_BADGE_BYTES} bytes")
    item_id = field("id")
    if item_id is not None:
        if not is_valid_name(item_id):
            raise FoldError(INVALID, f"field 'id' of item {n} must be 1-64 characters of [A-Za-z0-9_.-]")
        if item_id in ids:
            raise FoldError(INVALID, f"field 'id' of item {n}: duplicate item id '{item_id}'")
        ids.add(item_id)


# ---- the document -----------------------------------------------------------------------------

def _same_focus(a: Optional[Tuple[str, int]], b: Optional[Tuple[str, int]]) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a[1] == b[1] and same_string(a[0], b[0])


def _section(id: str, title: str, items: List[Any], expanded: bool) -> Dict[str, Any]:
    return {"id": id, "title": title, "items": items, "expanded": expanded}


def _with(section: Dict[str, Any], **fields: Any) -> Dict[str, Any]:
    s = dict(section)
    s.update(fields)
    return s


class _Board:
    """A board being worked on: the three fields, sections in canonical
    shape. Never changed in place once built: every rule makes a new one."""

    __slots__ = ("mode", "sections", "focus")

    def __init__(self, mode: str, sections: List[Dict[str, Any]], focus: Optional[Tuple[str, int]]) -> None:
        self.mode = mode
        self.sections = sections
        self.focus = focus

    def index(self, section_id: str) -> Optional[int]:
        key = _nfd(section_id)
        for i, s in enumerate(self.sections):
            if _nfd(s["id"]) == key:
                return i
        return None

    def require_index(self, section_id: str) -> int:
        i = self.index(section_id)
        if i is None:
            raise FoldError(NOT_FOUND, f"no section '{section_id}'")
        return i

    def focus_is_valid(self) -> bool:
        if self.focus is None:
            return True
        i = self.index(self.focus[0])
        return i is not None and 0 <= self.focus[1] < len(self.sections[i]["items"])

    def focused_item(self) -> Any:
        """The focused item, or None when there is no focus (or it reaches none)."""
        if self.focus is None:
            return None
        i = self.index(self.focus[0])
        if i is None or not 0 <= self.focus[1] < len(self.sections[i]["items"]):
            return None
        return self.sections[i]["items"][self.focus[1]]

    def item_index(self, item_id: str, section_id: str) -> Optional[int]:
        i = self.index(section_id)
        if i is None:
            return None
        for n, item in enumerate(self.sections[i]["items"]):
            other = item.get("id") if isinstance(item, dict) else None
            if isinstance(other, str) and same_string(other, item_id):
                return n
        return None

    def replacing(self, **fields: Any) -> "_Board":
        b = _Board(self.mode, self.sections, self.focus)
        for k, v in fields.items():
            setattr(b, k, v)
        return b

    def document(self) -> Dict[str, Any]:
        doc: Dict[str, Any] = {"mode": self.mode,
                               "sections": [_section(s["id"], s["title"], list(s["items"]), s["expanded"])
                                            for s in self.sections]}
        if self.focus is not None:
            doc["focus"] = {"section": self.focus[0], "item": self.focus[1]}
        return doc

    def equals(self, other: "_Board") -> bool:
        return (self.mode == other.mode and _same_focus(self.focus, other.focus)
                and len(self.sections) == len(other.sections)
                and all(same_string(a["id"], b["id"]) and same_string(a["title"], b["title"])
                        and a["expanded"] == b["expanded"] and same_json(a["items"], b["items"])
                        for a, b in zip(self.sections, other.sections)))

    def check_size(self, limits: Limits) -> None:
        if encoded_length(self.document()) > limits.max_board_bytes:
            raise FoldError(INVALID, f"board larger than {limits.max_board_bytes} bytes")

    def validate(self, limits: Limits) -> None:
        """Every rule and limit of a board whose fields are well typed."""
        if len(self.sections) > limits.max_sections:
            raise FoldError(INVALID, f"more than {limits.max_sections} sections")
        seen: Set[str] = set()
        for s in self.sections:
            if not is_valid_name(s["id"]):
                raise FoldError(BAD_REQUEST, f"section id '{s['id']}' must be 1-64 characters of [A-Za-z0-9_.-]")
            if s["id"] in seen:
                raise FoldError(INVALID, f"duplicate section id '{s['id']}'")
            seen.add(s["id"])
            _check_title(s["title"], limits)
            _check_items(s["items"], limits)
        if self.mode == "single" and sum(1 for s in self.sections if s["expanded"]) > 1:
            raise FoldError(INVALID, "more than one section expanded in single mode")
        if not self.focus_is_valid():
            raise FoldError(INVALID, "field 'focus' must name an existing section and item")
        self.check_size(limits)


def _read_shape(doc: Any, max_sections: Optional[int]) -> _Board:
    """Types only (Board(shape:) in the core): a FoldError bad_request for a
    wrong shape, invalid for more than max_sections sections."""
    if not isinstance(doc, dict):
        raise FoldError(BAD_REQUEST, "board state must be an object")
    mode = doc.get("mode")
    if not isinstance(mode, str):
        raise FoldError(BAD_REQUEST, "field 'mode' must be a string")
    if mode not in ("single", "multi"):
        raise FoldError(BAD_REQUEST, "field 'mode' must be \"single\" or \"multi\"")
    raw = doc.get("sections")
    if not isinstance(raw, list):
        raise FoldError(BAD_REQUEST, "field 'sections' must be an array")
    if max_sections is not None and len(raw) > max_sections:
        raise FoldError(INVALID, f"more than {max_sections} sections")
    sections = []
    for i, s in enumerate(raw):
        if not isinstance(s, dict):
            raise FoldError(BAD_REQUEST, f"section {i} must be an object")
        for name, kind, what in (("id", str, "a string"), ("title", str, "a string"),
                                 ("items", list, "an array"), ("expanded", bool, "a boolean")):
            if not isinstance(s.get(name), kind):
                raise FoldError(BAD_REQUEST, f"field '{name}' of section {i} must be {what}")
        sections.append(_section(s["id"], s["title"], s["items"], s["expanded"]))
    focus: Optional[Tuple[str, int]] = None
    if "focus" in doc:
        f = doc["focus"]
        if not isinstance(f, dict):
            raise FoldError(BAD_REQUEST, "field 'focus' must be an object")
        if not isinstance(f.get("section"), str):
            raise FoldError(BAD_REQUEST, "field 'section' of 'focus' must be a string")
        if not _is_int(f.get("item")):
            raise FoldError(BAD_REQUEST, "field 'item' of 'focus' must be an integer")
        focus = (f["section"], f["item"])
    return _Board(mode, sections, focus)


def _read_trusted(doc: Any) -> _Board:
    """A document the daemon sent: types checked, rules not; a focus that
    reaches no item is dropped."""
    try:
        board = _read_shape(doc, None)
    except FoldError as e:
        raise ValueError(f"not a board document: {e.message}") from None
    if not board.focus_is_valid():
        board.focus = None
    return board


def canonical_board(board: Any) -> Dict[str, Any]:
    """`board` in the canonical shape the daemon stores and serves: known
    fields only, keys in order (`mode`, `sections`, `focus` last; a section's
    `id`, `title`, `items`, `expanded`). Raises ValueError for a value that
    is not a board document."""
    return _read_trusted(board).document()


# ---- reading the action message ---------------------------------------------------------------

class _Fields:
    """Typed access to a message's members; every failure is bad_request naming the field."""

    def __init__(self, obj: Dict[str, Any]) -> None:
        self.obj = obj

    def string(self, name: str) -> str:
        value = self.optional_string(name)
        if value is None:
            raise FoldError(BAD_REQUEST, f"field '{name}' must be a string")
        return value

    def optional_string(self, name: str) -> Optional[str]:
        if name not in self.obj:
            return None
        value = self.obj[name]
        if not isinstance(value, str):
            raise FoldError(BAD_REQUEST, f"field '{name}' must be a string")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        if name not in self.obj:
            return default
        value = self.obj[name]
        if not isinstance(value, bool):
            raise FoldError(BAD_REQUEST, f"field '{name}' must be a boolean")
        return value

    def optional_int(self, name: str) -> Optional[int]:
        if name not in self.obj:
            return None
        value = self.obj[name]
        if not _is_int(value):
            raise FoldError(BAD_REQUEST, f"field '{name}' must be an integer")
        return int(value)

    def integer(self, name: str) -> int:
        value = self.optional_int(name)
        if value is None:
            raise FoldError(BAD_REQUEST, f"field '{name}' must be an integer")
        return value

    def array(self, name: str) -> List[Any]:
        value = self.obj.get(name)
        if not isinstance(value, list):
            raise FoldError(BAD_REQUEST, f"field '{name}' must be an array")
        return value

    def object(self, name: str) -> Dict[str, Any]:
        value = self.obj.get(name)
        if not isinstance(value, dict):
            raise FoldError(BAD_REQUEST, f"field '{name}' must be an object")
        return value


def _key_problem(key: str) -> Optional[str]:
    data = key.encode("utf-8", "surrogatepass")
    if not data:
        return "must not be empty"
    if len(data) > MAX_KEY_BYTES:
        return f"is {len(data)} bytes long; at most {MAX_KEY_BYTES} are allowed"
    if not all(0x20 <= b <= 0x7E for b in data):
        return "must be printable ASCII, without control characters"
    return None


def _read_message(action: Any, limits: Limits) -> _Fields:
    """The checks every action message gets before its own fields."""
    if _deeper_than(action, limits.max_json_depth):
        raise FoldError(BAD_REQUEST, f"not valid JSON: nesting deeper than {limits.max_json_depth}")
    if not isinstance(action, dict):
        raise FoldError(BAD_REQUEST, "a message must be a JSON object")
    m = _Fields(action)
    m.optional_string("id")
    kind = m.string("type")
    if kind not in ACTION_TYPES:
        raise FoldError(UNKNOWN_TYPE, f"unknown action type '{kind}'")
    if_rev = m.optional_int("ifRev")
    if if_rev is not None and if_rev < 0:
        raise FoldError(BAD_REQUEST, "field 'ifRev' must be a non-negative integer")
    key = m.optional_string("key")
    if key is not None:
        problem = _key_problem(key)
        if problem:
            raise FoldError(BAD_REQUEST, f"field 'key' {problem}")
    return m


# ---- the rules --------------------------------------------------------------------------------

def _expanding(b: _Board, i: int) -> _Board:
    """Expands section i; in single mode the open one is collapsed (the accordion)."""
    sections = list(b.sections)
    if b.mode == "single":
        for j, s in enumerate(sections):
            if j != i and s["expanded"]:
                sections[j] = _with(s, expanded=False)
    sections[i] = _with(sections[i], expanded=True)
    return b.replacing(sections=sections)


def _set_expanded(b: _Board, i: int, expanded: bool) -> _Board:
    sections = list(b.sections)
    sections[i] = _with(sections[i], expanded=expanded)
    return b.replacing(sections=sections)


def _setting_all(b: _Board, expanded: bool) -> Optional[_Board]:
    if all(s["expanded"] == expanded for s in b.sections):
        return None
    return b.replacing(sections=[s if s["expanded"] == expanded else _with(s, expanded=expanded)
                                 for s in b.sections])


def _setting_mode(b: _Board, mode: str) -> Optional[_Board]:
    if mode == b.mode:
        return None
    sections = b.sections
    if mode == "single":
        sections = []
        seen_open = False
        for s in b.sections:
            if s["expanded"]:
                if seen_open:
                    s = _with(s, expanded=False)
                seen_open = True
            sections.append(s)
    return b.replacing(mode=mode, sections=sections)


def _generated_id(b: _Board) -> str:
    """The smallest n >= the section count such that "s<n>" is unused."""
    used = {_nfd(s["id"]) for s in b.sections}
    n = len(b.sections)
    while f"s{n}" in used:
        n += 1
    return f"s{n}"


def _adding(b: _Board, draft_id: Optional[str], title: str, items: List[Any], expanded: bool,
            at: Optional[int], limits: Limits) -> _Board:
    if draft_id is not None:
        if not is_valid_name(draft_id):
            raise FoldError(BAD_REQUEST, f"section id '{draft_id}' must be 1-64 characters of [A-Za-z0-9_.-]")
        if b.index(draft_id) is not None:
            raise FoldError(INVALID, f"section '{draft_id}' already exists")
        new_id = draft_id
    else:
        new_id = _generated_id(b)
    _check_title(title, limits)
    _check_items(items, limits)
    count = len(b.sections)
    if count >= limits.max_sections:
        raise FoldError(INVALID, f"a board holds at most {limits.max_sections} sections")
    position = count if at is None else at
    if not 0 <= position <= count:
        raise FoldError(INVALID, f"index {position} is outside 0...{count}")
    sections = list(b.sections)
    if b.mode == "single" and expanded:
        sections = [_with(s, expanded=False) if s["expanded"] else s for s in sections]
    sections.insert(position, _section(new_id, title, list(items), expanded))
    board = b.replacing(sections=sections)
    board.check_size(limits)
    return board


def _moving(b: _Board, section_id: str, to: int) -> Optional[_Board]:
    i = b.require_index(section_id)
    count = len(b.sections)
    if not 0 <= to < count:
        raise FoldError(INVALID, f"index {to} is outside 0..<{count}")
    if to == i:
        return None
    sections = list(b.sections)
    sections.insert(to, sections.pop(i))
    return b.replacing(sections=sections)


def _setting_title(b: _Board, section_id: str, title: str, limits: Limits) -> Optional[_Board]:
    i = b.require_index(section_id)
    _check_title(title, limits)
    old = b.sections[i]["title"]
    if same_string(old, title):
        return None
    sections = list(b.sections)
    sections[i] = _with(sections[i], title=title)
    board = b.replacing(sections=sections)
    if _utf8_len(title) > _utf8_len(old):
        board.check_size(limits)
    return board


def _setting_items(b: _Board, section_id: str, items: List[Any], limits: Limits) -> Optional[_Board]:
    i = b.require_index(section_id)
    _check_items(items, limits)
    if same_json(b.sections[i]["items"], items):
        return None
    sections = list(b.sections)
    sections[i] = _with(sections[i], items=list(items))
    board = b.replacing(sections=sections)
    board.check_size(limits)
    return board


def _focusing(b: _Board, section_id: str, item: int) -> Optional[_Board]:
    i = b.require_index(section_id)
    count = len(b.sections[i]["items"])
    if not 0 <= item < count:
        raise FoldError(INVALID, f"section '{section_id}' has no items to focus" if count == 0
                        else f"item {item} is outside 0..<{count} of section '{section_id}'")
    wanted = (section_id, item)
    expanded = b.sections[i]["expanded"]
    if _same_focus(b.focus, wanted) and expanded:
        return None
    board = b if expanded else _expanding(b, i)
    return board if _same_focus(b.focus, wanted) else board.replacing(focus=wanted)


def _keeping_focus(new: _Board, old: _Board) -> _Board:
    """After an action that did not set the focus itself: a focused item with
    an `id` is followed to its new index, and the focus removed when the id
    is gone; any other focus is removed when its index reaches no item."""
    focus = new.focus
    if focus is None or not _same_focus(focus, old.focus):
        return new
    item = old.focused_item()
    item_id = item.get("id") if isinstance(item, dict) else None
    if isinstance(item_id, str):
        moved = new.item_index(item_id, focus[0])
        if moved is None:
            return new.replacing(focus=None)
        if moved != focus[1]:
            return new.replacing(focus=(focus[0], moved))
        return new
    if not new.focus_is_valid():
        return new.replacing(focus=None)
    return new


def _applying_edit(b: _Board, kind: str, m: _Fields, limits: Limits) -> Optional[_Board]:
    if kind == "toggle":
        i = b.require_index(m.string("section"))
        return _set_expanded(b, i, False) if b.sections[i]["expanded"] else _expanding(b, i)
    if kind == "expand":
        i = b.require_index(m.string("section"))
        return None if b.sections[i]["expanded"] else _expanding(b, i)
    if kind == "collapse":
        i = b.require_index(m.string("section"))
        return _set_expanded(b, i, False) if b.sections[i]["expanded"] else None
    if kind == "expandAll":
        if b.mode != "multi":
            raise FoldError(INVALID, "expandAll is not allowed in single mode")
        return _setting_all(b, True)
    if kind == "collapseAll":
        return _setting_all(b, False)
    if kind == "setMode":
        mode = m.string("mode")
        if mode not in ("single", "multi"):
            raise FoldError(BAD_REQUEST, "field 'mode' must be \"single\" or \"multi\"")
        return _setting_mode(b, mode)
    if kind == "addSection":
        draft = _Fields(m.object("section"))
        items = draft.array("items") if "items" in draft.obj else []
        draft_id = draft.optional_string("id")
        title = draft.string("title")
        expanded = draft.boolean("expanded", False)
        at = m.optional_int("at")
        return _adding(b, draft_id, title, items, expanded, at, limits)
    if kind == "removeSection":
        i = b.require_index(m.string("section"))
        return b.replacing(sections=b.sections[:i] + b.sections[i + 1:])
    if kind == "moveSection":
        section_id = m.string("section")
        return _moving(b, section_id, m.integer("to"))
    if kind == "setTitle":
        section_id = m.string("section")
        return _setting_title(b, section_id, m.string("title"), limits)
    if kind == "setItems":
        section_id = m.string("section")
        return _setting_items(b, section_id, m.array("items"), limits)
    if kind == "focus":
        section_id = m.string("section")
        return _focusing(b, section_id, m.integer("item"))
    if kind == "clearFocus":
        return None if b.focus is None else b.replacing(focus=None)
    # revert: its undo is read from the board's history, which the daemon holds.
    m.integer("rev")
    raise FoldError(INVALID, "revert needs the board's history")


def apply_action(board: Dict[str, Any], action: Dict[str, Any],
                 limits: Limits = DEFAULT_LIMITS) -> Tuple[Dict[str, Any], bool]:
    """The board after `action`, and whether the action changed it; the
    daemon's refusal as a `FoldError` (`bad_request`, `unknown_type`,
    `not_found`, `invalid`). See the module's documentation."""
    current = _read_trusted(board)
    m = _read_message(action, limits)
    kind: str = action["type"]
    if kind == "replace":
        if "state" not in action:
            raise FoldError(BAD_REQUEST, "field 'state' must be an object")
        new = _read_shape(action["state"], limits.max_sections)
        new.validate(limits)
        if new.equals(current):
            return board, False
        return new.document(), True
    after = _applying_edit(current, kind, m, limits)
    if after is None:
        return board, False
    return _keeping_focus(after, current).document(), True
