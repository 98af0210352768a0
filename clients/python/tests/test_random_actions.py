"""Three clients at once, each making ~150 random actions on one multi-mode
board, some of which fail (a section another client removed: not_found; an
index past a shrunk board: invalid). Afterwards every client's mirror equals
GET, and each saw every rev once, in order.

Seeded: the seed is printed (pytest shows it when the test fails), and
FOLDSYNC_TEST_SEED=N repeats its choices (not the interleaving of the three
clients, which the daemon decides)."""
from __future__ import annotations

import asyncio
import os
import random
from typing import Any, Dict, List, Tuple

import foldsync
from harness import DaemonCase, board_doc

CLIENTS = 3
ACTIONS_EACH = 150
# What a stale view of the board can get refused with; anything else fails the test.
EXPECTED_REFUSALS = {"not_found", "invalid"}


def random_action(rng: random.Random, state: Any, tag: str) -> Dict[str, Any]:
    ids: List[str] = [s["id"] for s in state["sections"]] if state else []

    def section() -> str:
        # Sometimes one that is gone or never was: not_found.
        if not ids or rng.random() < 0.08:
            return rng.choice(["gone", f"{tag}-never"])
        return rng.choice(ids)

    kind = rng.choices(
        ["toggle", "expand", "collapse", "setTitle", "addSection", "removeSection", "moveSection", "setItems",
         "expandAll", "collapseAll"],
        weights=[5, 3, 3, 3, 2, 2, 2, 2, 1, 1])[0]
    if kind == "addSection" and len(ids) >= 10:
        kind = "removeSection"
    if kind == "removeSection" and len(ids) <= 2:
        kind = "addSection"
    if kind in ("toggle", "expand", "collapse", "removeSection"):
        return {"type": kind, "section": section()}
    if kind == "setTitle":
        return {"type": kind, "section": section(), "title": f"{tag} {rng.randrange(1000)}"}
    if kind == "addSection":
        new: Dict[str, Any] = {"id": f"{tag}-{rng.randrange(10**9)}", "title": tag,
                               "items": [f"i{n}" for n in range(rng.randrange(4))], "expanded": rng.random() < 0.5}
        action: Dict[str, Any] = {"type": kind, "section": new}
        if rng.random() < 0.5:
            action["at"] = rng.randrange(len(ids) + 2)  # one past the end: invalid
        return action
    if kind == "moveSection":
        return {"type": kind, "section": section(), "to": rng.randrange(len(ids) + 1)}
    if kind == "setItems":
        items: List[Any] = [rng.choice([f"x{rng.randrange(100)}", {"label": f"L{rng.randrange(100)}"}])
                            for _ in range(rng.randrange(5))]
        return {"type": kind, "section": section(), "items": items}
    return {"type": kind}


class RandomActionsTests(DaemonCase):
    async def test_three_clients_random_actions_mirror_get(self) -> None:
        seed = int(os.environ.get("FOLDSYNC_TEST_SEED") or random.randrange(2**32))
        print(f"random actions: seed {seed} (FOLDSYNC_TEST_SEED={seed} repeats its choices)")
        try:
            await self.run_clients(seed)
        except AssertionError as e:
            raise AssertionError(f"seed {seed}: {e}") from e

    async def run_clients(self, seed: int) -> None:
        await self.in_thread(self.daemon.ok, "PUT", "/api/boards/r", board_doc("a", "b", "c", "d", mode="multi"))
        clients = [await self.bounded(foldsync.connect(self.daemon.url)) for _ in range(CLIENTS)]
        for c in clients:
            self.addAsyncCleanup(c.close)
        boards = [await self.bounded(c.subscribe("r")) for c in clients]
        start = boards[0].rev or 0
        seen: List[List[foldsync.Change]] = [[] for _ in boards]
        for board, changes in zip(boards, seen):
            board.on_change(changes.append)

        async def play(n: int, board: foldsync.Board) -> Tuple[int, Dict[str, int]]:
            rng = random.Random(seed * CLIENTS + n)
            done, refused = 0, {}  # type: int, Dict[str, int]
            while done < ACTIONS_EACH:
                # Mostly one at a time; now and then a few in flight at once.
                burst = [random_action(rng, board.state, f"c{n}") for _ in range(rng.choice([1, 1, 1, 3]))]
                outcomes = await self.bounded(asyncio.gather(*(board.act(a) for a in burst), return_exceptions=True))
                for action, outcome in zip(burst, outcomes):
                    if isinstance(outcome, foldsync.FoldError):
                        self.assertIn(outcome.code, EXPECTED_REFUSALS, f"{action} -> {outcome}")
                        self.assertTrue(outcome.message)
                        refused[outcome.code] = refused.get(outcome.code, 0) + 1
                    elif isinstance(outcome, BaseException):
                        raise outcome
                    else:
                        self.assertIsInstance(outcome, int)
                done += len(burst)
            return done, refused

        results = await self.bounded(asyncio.gather(*(play(n, b) for n, b in enumerate(boards))), timeout=120)
        print("actions and refusals per client:", results)
        self.assertTrue(any(r[1] for r in results), "no action was refused: the failing ones were not exercised")
        self.assertTrue(all(c.state == "connected" for c in clients))

        final = await self.in_thread(self.daemon.board, "r")
        self.assertGreater(final["rev"], start + ACTIONS_EACH, "too few actions changed the board")
        for n, (board, changes) in enumerate(zip(boards, seen)):
            await self.wait_for(f"client {n} at rev {final['rev']}", lambda: board.rev == final["rev"])
            self.assertEqual((board.state, board.rev, board.epoch), (final["state"], final["rev"], final["epoch"]),
                             f"client {n}'s mirror")
            self.assertEqual([c.rev for c in changes if not c.local], list(range(start + 1, final["rev"] + 1)),
                             f"client {n} missed or repeated a rev")
            self.assertFalse([c for c in changes if c.resynced], f"client {n} was resynced")
