"""`rate_limited` comes without the action's id: matching it by the order
of the acks (pending.py), decided from the answers alone (no daemon: which
action the daemon refuses depends on timing)."""
from __future__ import annotations

import asyncio
import unittest
from typing import List

from foldsync.errors import FoldError
from foldsync.pending import Pending


def limited() -> FoldError:
    return FoldError("rate_limited", "over 1 messages per second")


class PendingTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.pending = Pending()
        opened = [self.pending.open() for _ in range(4)]
        self.ids = [i for i, _ in opened]
        self.answers: List["asyncio.Future[int]"] = [f for _, f in opened]

    def outcomes(self) -> List[object]:
        return [None if not f.done() else (f.exception().code if f.exception() else f.result())  # type: ignore[union-attr]
                for f in self.answers]

    async def test_refused_between_acks(self) -> None:
        # 1 accepted, 2 refused, 3 accepted, 4 refused.
        self.pending.reject_unnamed(limited())
        self.pending.reject_unnamed(limited())
        self.assertEqual(self.outcomes(), [None] * 4)
        self.pending.resolve(self.ids[0], 7)
        self.assertEqual(self.outcomes(), [7, None, None, None])
        self.pending.resolve(self.ids[2], 8)  # acks in order: 2 was refused
        self.assertEqual(self.outcomes(), [7, "rate_limited", 8, "rate_limited"])  # and 4 is all that is left

    async def test_all_refused_at_once(self) -> None:
        for _ in range(4):
            self.pending.reject_unnamed(limited())
        self.assertEqual(self.outcomes(), ["rate_limited"] * 4)

    async def test_errors_with_ids_count_too(self) -> None:
        self.pending.reject_unnamed(limited())
        self.pending.reject(self.ids[0], FoldError("not_found", "no section"))
        self.pending.resolve(self.ids[1], 3)
        self.pending.resolve(self.ids[3], 4)
        self.assertEqual(self.outcomes(), ["not_found", 3, "rate_limited", 4])

    async def test_with_nothing_waiting_it_answered_something_else(self) -> None:
        for i, rev in zip(self.ids, range(4)):
            self.pending.resolve(i, rev)
        self.pending.reject_unnamed(limited())  # a refused `view`, say
        action_id, answer = self.pending.open()
        self.pending.resolve(action_id, 9)
        self.assertEqual(answer.result(), 9)

    async def test_a_drop_forgets_unmatched_refusals(self) -> None:
        self.pending.reject_unnamed(limited())
        self.pending.forget_all()  # the outbox sends them again
        self.assertEqual(self.outcomes(), [None] * 4)
        action_id, answer = self.pending.open()
        self.pending.resolve(action_id, 1)
        self.assertEqual(answer.result(), 1)

    async def test_a_lagging_resync_forgets_the_answers_that_came_in_band(self) -> None:
        out_of_band, posted = self.pending.open(in_band=False)
        self.pending.reject_unnamed(limited())
        self.pending.forget_in_band()  # the outbox sends those again, with new ids
        self.assertEqual(self.outcomes(), [None] * 4, "nothing failed")
        self.assertFalse(self.pending.awaits({"type": "ack", "id": self.ids[0], "rev": 3}))
        self.pending.resolve(self.ids[0], 3)  # a late answer to an old id: ignored
        self.assertEqual(self.outcomes(), [None] * 4)
        self.assertTrue(self.pending.awaits({"type": "ack", "id": out_of_band, "rev": 4}))
        self.pending.resolve(out_of_band, 4)
        self.assertEqual(posted.result(), 4, "a POST's answer is not dropped by a resync")
