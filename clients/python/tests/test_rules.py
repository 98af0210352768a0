"""foldsync.rules beyond the shared vectors (test_vectors.py runs those):
the decoding of action messages, the limits, links, the focus and the
daemon's string equality, read from Sources/FoldCore."""
from __future__ import annotations

import copy
import json
import unittest
from typing import Any, Dict, List

from foldsync import DEFAULT_LIMITS, FoldError, Limits, apply_action
from foldsync.rules import is_allowed_link


def board(*sections: Dict[str, Any], mode: str = "single", **extra: Any) -> Dict[str, Any]:
    return {"mode": mode, "sections": list(sections), **extra}


def section(id: str, items: List[Any] = [], expanded: bool = False, title: str = "") -> Dict[str, Any]:
    return {"id": id, "title": title or id.upper(), "items": list(items), "expanded": expanded}


THREE = board(section("s0", ["a", "b"]), section("s1", ["c"], expanded=True), section("s2"))


class RulesTests(unittest.TestCase):
    def code(self, b: Dict[str, Any], action: Any, limits: Limits = DEFAULT_LIMITS) -> str:
        with self.assertRaises(FoldError) as caught:
            apply_action(b, action, limits)
        return caught.exception.code

    def test_defaults_are_the_daemons(self) -> None:
        self.assertEqual((DEFAULT_LIMITS.max_sections, DEFAULT_LIMITS.max_items, DEFAULT_LIMITS.max_title_bytes,
                          DEFAULT_LIMITS.max_item_bytes, DEFAULT_LIMITS.max_board_bytes, DEFAULT_LIMITS.max_json_depth),
                         (5000, 10000, 1024, 4096, 4 * 1024 * 1024, 32))

    def test_malformed_messages_are_bad_request(self) -> None:
        cases = [
            [],
            {"section": "s0"},
            {"type": 7},
            {"type": "toggle"},
            {"type": "toggle", "section": None},
            {"type": "toggle", "section": "s0", "id": 1},
            {"type": "toggle", "section": "s0", "ifRev": -1},
            {"type": "toggle", "section": "s0", "ifRev": 1.0},
            {"type": "toggle", "section": "s0", "key": ""},
            {"type": "toggle", "section": "s0", "key": "k\n"},
            {"type": "setMode", "mode": "double"},
            {"type": "moveSection", "section": "s0", "to": 1.0},
            {"type": "moveSection", "section": "s0", "to": True},
            {"type": "moveSection", "section": "nope", "to": 2 ** 63},
            {"type": "focus", "section": "s0", "item": "1"},
            {"type": "addSection", "section": {"title": "T", "items": None}},
            {"type": "addSection", "section": {"title": "T", "id": None}},
            {"type": "addSection", "section": {"title": "T", "expanded": 1}},
            {"type": "addSection", "section": {"title": "T"}, "at": None},
            {"type": "addSection", "section": {"id": "not valid", "title": "T"}},
            {"type": "addSection", "section": "s9"},
            {"type": "setItems", "section": "s0", "items": [True]},
            {"type": "setItems", "section": "s0", "items": [{"label": 1}]},
            {"type": "setItems", "section": "s0", "items": [{"label": "x", "id": 5}]},
            {"type": "setItems", "section": "s0", "items": [{"detail": "no label"}]},
            {"type": "replace"},
            {"type": "replace", "state": {"mode": "multi", "sections": [{"id": "a", "title": "A", "items": []}]}},
            {"type": "replace", "state": board(section("bad id"))},
            {"type": "revert", "rev": "1"},
            {"type": "setItems", "section": "s0", "items": [{"label": "x", "deep": json.loads("[" * 31 + "]" * 31)}]},
        ]
        for action in cases:
            with self.subTest(action=action):
                self.assertEqual(self.code(THREE, action), "bad_request")

    def test_other_refusals(self) -> None:
        self.assertEqual(self.code(THREE, {"type": "subscribe", "board": "b"}), "unknown_type")
        self.assertEqual(self.code(THREE, {"type": "nope"}), "unknown_type")
        self.assertEqual(self.code(THREE, {"type": "setTitle", "section": "x", "title": "T"}), "not_found")
        self.assertEqual(self.code(THREE, {"type": "moveSection", "section": "s0", "to": -1}), "invalid")
        self.assertEqual(self.code(THREE, {"type": "addSection", "section": {"title": "T"}, "at": -1}), "invalid")
        self.assertEqual(self.code(THREE, {"type": "focus", "section": "s2", "item": 0}), "invalid")
        self.assertEqual(self.code(THREE, {"type": "revert", "rev": 1}), "invalid")
        items = [{"label": "a", "id": "x"}, {"label": "b", "id": "x"}]
        self.assertEqual(self.code(THREE, {"type": "setItems", "section": "s0", "items": items}), "invalid")
        long_badge = [{"label": "a", "badge": "b" * 65}]
        self.assertEqual(self.code(THREE, {"type": "setItems", "section": "s0", "items": long_badge}), "invalid")
        self.assertEqual(self.code(THREE, {"type": "replace", "state": board(section("a", expanded=True),
                                                                              section("b", expanded=True))}), "invalid")
        self.assertEqual(self.code(THREE, {"type": "replace", "state": board(section("a"),
                                                                              focus={"section": "a", "item": 0})}),
                         "invalid")

    def test_limits(self) -> None:
        small = Limits(max_sections=3, max_items=2, max_title_bytes=4, max_item_bytes=12, max_board_bytes=300)
        self.assertEqual(self.code(THREE, {"type": "addSection", "section": {"title": "T"}}, small), "invalid")
        self.assertEqual(self.code(THREE, {"type": "setTitle", "section": "s0", "title": "ééé"}, small), "invalid")
        apply_action(THREE, {"type": "setTitle", "section": "s0", "title": "éé"}, small)
        self.assertEqual(self.code(THREE, {"type": "setItems", "section": "s0", "items": ["a", "b", "c"]}, small),
                         "invalid")
        # 12 bytes encoded: "\u2028" counts 6, as the daemon escapes it.
        apply_action(THREE, {"type": "setItems", "section": "s0", "items": ["ab\u2028cd"]}, small)
        self.assertEqual(self.code(THREE, {"type": "setItems", "section": "s0", "items": ["abc\u2028cd"]}, small),
                         "invalid")
        self.assertEqual(self.code(THREE, {"type": "setItems", "section": "s0", "items": ["a\nbcdefghi"]}, small),
                         "invalid")
        size = len(json.dumps(THREE, separators=(",", ":")))
        exact = Limits(max_board_bytes=size + 3)
        apply_action(THREE, {"type": "setTitle", "section": "s2", "title": "S2xyz"}, exact)
        self.assertEqual(self.code(THREE, {"type": "setTitle", "section": "s2", "title": "S2wxyz"}, exact), "invalid")
        # A title that does not grow is not measured.
        apply_action(THREE, {"type": "setTitle", "section": "s0", "title": "S"}, Limits(max_board_bytes=10))

    def test_links(self) -> None:
        for href in ["https://example.com", "HTTP://x", "mailto:a@b", "http://x/y?z#w"]:
            self.assertTrue(is_allowed_link(href), href)
        for href in ["javascript:alert(1)", "data:text/html,x", "/relative", "http:/x", "http:///x", "http://",
                     "mailto:", "https://exa mple.com", "https://x\u200b.com", "https://x\u202e.com",
                     "java\tscript:x", ":x", "1http://x", "https://x\x85"]:
            self.assertFalse(is_allowed_link(href), href)

    def test_the_focus_follows_its_items_id_and_goes_with_it(self) -> None:
        b = board(section("s0", [{"label": "A", "id": "a"}, "b"], expanded=True), focus={"section": "s0", "item": 0})
        after, _ = apply_action(b, {"type": "setItems", "section": "s0", "items": ["x", "y", {"label": "A2", "id": "a"}]})
        self.assertEqual(after["focus"], {"section": "s0", "item": 2})
        after, _ = apply_action(b, {"type": "setItems", "section": "s0", "items": [{"label": "A", "id": "z"}, "b"]})
        self.assertNotIn("focus", after)
        # Without an id, the index stays while it reaches an item.
        b = board(section("s0", ["a", "b"]), focus={"section": "s0", "item": 1})
        after, _ = apply_action(b, {"type": "setItems", "section": "s0", "items": ["x", "y", "z"]})
        self.assertEqual(after["focus"], {"section": "s0", "item": 1})
        # Moving sections never moves the focus.
        after, _ = apply_action(b, {"type": "addSection", "section": {"title": "T"}, "at": 0})
        self.assertEqual(after["focus"], {"section": "s0", "item": 1})
        self.assertEqual(list(after), ["mode", "sections", "focus"])
        # Focus on an open section moves it without folding anything.
        b = board(section("s0", ["a", "b"], expanded=True), focus={"section": "s0", "item": 0})
        after, changed = apply_action(b, {"type": "focus", "section": "s0", "item": 1})
        self.assertTrue(changed)
        self.assertEqual(after, board(section("s0", ["a", "b"], expanded=True), focus={"section": "s0", "item": 1}))
        self.assertEqual(apply_action(after, {"type": "focus", "section": "s0", "item": 1}), (after, False))

    def test_a_focus_that_reaches_no_item_is_dropped_on_reading(self) -> None:
        b = board(section("s0", ["a"]), focus={"section": "s0", "item": 5})
        after, changed = apply_action(b, {"type": "toggle", "section": "s0"})
        self.assertTrue(changed)
        self.assertNotIn("focus", after)

    def test_no_ops_return_the_board_given(self) -> None:
        for action in [{"type": "expand", "section": "s1"}, {"type": "setMode", "mode": "single"},
                       {"type": "setItems", "section": "s0", "items": ["a", "b"]},
                       {"type": "replace", "state": copy.deepcopy(THREE)}, {"type": "clearFocus"},
                       {"type": "moveSection", "section": "s2", "to": 2}]:
            with self.subTest(action=action):
                after, changed = apply_action(THREE, action)
                self.assertIs(after, THREE)
                self.assertFalse(changed)

    def test_strings_are_equal_as_the_daemon_compares_them(self) -> None:
        # Swift compares strings by canonical equivalence: é (one scalar) is e + U+0301.
        b = board(section("s0", ["\u00e9", {"label": "x", "\u00e9": 1}], title="caf\u00e9"))
        self.assertFalse(apply_action(b, {"type": "setTitle", "section": "s0", "title": "cafe\u0301"})[1])
        self.assertFalse(apply_action(b, {"type": "setItems", "section": "s0",
                                          "items": ["e\u0301", {"label": "x", "e\u0301": 1.0}]})[1])
        self.assertTrue(apply_action(b, {"type": "setItems", "section": "s0",
                                         "items": ["e\u0301", {"label": "x", "e\u0301": True}]})[1])

    def test_generated_ids_count_up_from_the_number_of_sections(self) -> None:
        b = board(section("s3"), section("s2"), section("x"))
        after, _ = apply_action(b, {"type": "addSection", "section": {"title": "T"}})
        self.assertEqual([s["id"] for s in after["sections"]], ["s3", "s2", "x", "s4"])

    def test_the_result_is_canonical_and_the_input_untouched(self) -> None:
        b = {"sections": [{"expanded": False, "items": ["a"], "title": "T", "id": "s0", "extra": 1}],
             "mode": "multi", "unknown": True}
        before = copy.deepcopy(b)
        after, changed = apply_action(b, {"type": "expand", "section": "s0"})
        self.assertTrue(changed)
        self.assertEqual(json.dumps(after), json.dumps(board(section("s0", ["a"], True, "T"), mode="multi")))
        self.assertEqual(b, before)
        after["sections"][0]["items"].append("b")
        self.assertEqual(b, before)

    def test_a_board_that_is_no_document_is_a_value_error(self) -> None:
        for b in [None, {"mode": "single"}, {"mode": "x", "sections": []}, board({"id": "s0"})]:
            with self.subTest(board=b):
                with self.assertRaises(ValueError):
                    apply_action(b, {"type": "collapseAll"})  # type: ignore[arg-type]
