"""Tests/vectors/session.json through session.py: the cases the Swift
(Tests/FoldSessionTests/SessionVectorTests.swift) and JavaScript
(Tests/js-client/session-vectors.test.mjs) session machines run too, with
the same matching rule: the same number of outputs, the same kinds in
order, every field a wanted output names equal (a `send` compared whole).

SESSION_VECTORS names another file to run (the runner's own check: a
broken case must fail)."""
from __future__ import annotations

import json
import os
import pathlib
from typing import Any, Dict, List, Optional

import pytest

from foldsync.change import Change
from foldsync.session import PROVIDER, Session

FILE = pathlib.Path(os.environ.get("SESSION_VECTORS")
                    or pathlib.Path(__file__).resolve().parents[3] / "Tests" / "vectors" / "session.json")


def cases() -> List[Dict[str, Any]]:
    return json.loads(FILE.read_text(encoding="utf-8")).get("cases") or []


def test_the_vectors_are_read() -> None:
    # A reader that found no cases would pass every case below.
    assert len(cases()) >= 20


def vocabulary(output: Dict[str, Any]) -> Dict[str, Any]:
    """An output in session.json's words: a Change written out field by field."""
    [(kind, body)] = output.items()
    if kind != "change":
        return output
    c: Change = body
    rolled = None if c.rolled_back is None else {"key": c.rolled_back.key, "code": c.rolled_back.error.code}
    return {"change": {"board": c.board, "rev": c.rev, "epoch": c.epoch, "ops": c.ops, "state": c.state,
                       "confirmed": c.confirmed, "resynced": c.resynced, "reason": c.reason, "local": c.local,
                       "rolledBack": rolled}}


def same(a: Any, b: Any) -> bool:
    """JSON equality: a bool is never a number, 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def matches(got: List[Dict[str, Any]], want: List[Dict[str, Any]]) -> bool:
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        [(kind, gb)] = g.items()
        if kind not in w:
            return False
        if kind == "send":
            if not same(gb, w[kind]):
                return False
            continue
        if not all(field in gb and same(gb[field], value) for field, value in w[kind].items()):
            return False
    return True


def machine(case: Dict[str, Any]) -> Session:
    token: Optional[Any] = None
    t = case.get("token")
    if t == "provider":
        token = PROVIDER
    elif isinstance(t, dict):
        token = ("value", t["value"])
    limits = case.get("outbox") or {}
    return Session(case.get("client", "c1"), token,
                   **({"max_actions": limits["maxActions"]} if "maxActions" in limits else {}),
                   **({"max_age": float(limits["maxAge"])} if "maxAge" in limits else {}),
                   endpoints=case.get("endpoints", 1))


@pytest.mark.parametrize("case", cases(), ids=[c.get("name", str(n)) for n, c in enumerate(cases())])
def test_session_case(case: Dict[str, Any]) -> None:
    session = machine(case)
    now = 0.0
    for i, step in enumerate(case["steps"]):
        if "at" in step:
            now = float(step["at"])
        got = [vocabulary(o) for o in session.handle(step["in"], now, float(step.get("random", 0.5)))]
        want = step.get("out", [])
        text = lambda outputs: "\n  ".join(json.dumps(o, default=repr) for o in outputs)  # noqa: E731
        assert matches(got, want), f"{case['name']}, step {i}: got\n  {text(got)}\nwanted\n  {text(want)}"
