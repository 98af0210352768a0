"""Reconnect delays: the terminal client's numbers (Backoff(base: 0.5,
cap: 10) in Sources/FoldCore), so every client of a restarted daemon comes
back within the same bound. Tests/vectors/backoff.json pins them."""
from __future__ import annotations

import math
import random as _random
from typing import Callable

BASE_MS = 500
CAP_MS = 10_000


def _ceiling_ms(attempt: int) -> int:
    # min() first: 2 ** attempt for a large attempt is still exact in ints.
    return min(CAP_MS, BASE_MS * 2 ** min(attempt, 64))


def backoff_delay(attempt: int, random: Callable[[], float] = _random.random) -> int:
    """Milliseconds before reconnect attempt `attempt` (0 after a success):
    equal jitter, half the capped exponential delay fixed, half random."""
    ceiling = _ceiling_ms(attempt)
    # Half up, like JavaScript's Math.round, not Python's round-half-even.
    return int(math.floor(ceiling / 2 + random() * (ceiling / 2) + 0.5))


def backoff_seconds(attempt: int, random: float) -> float:
    """The same delay in seconds, unrounded, for a `random` given in [0, 1]
    (the session machine's, as Backoff.next(random:) in Swift)."""
    ceiling = _ceiling_ms(attempt) / 1000
    return ceiling / 2 + ceiling / 2 * min(max(random, 0.0), 1.0)


class Backoff:
    """Counts failed attempts; `reset()` after a connection that reached
    `connected`, so a daemon that accepts and drops at once is not hammered."""

    def __init__(self, random: Callable[[], float] = _random.random) -> None:
        self.attempt = 0
        self._random = random

    def next_delay_ms(self) -> int:
        delay = backoff_delay(self.attempt, self._random)
        self.attempt += 1
        return delay

    def next_seconds(self, random: float) -> float:
        """The next delay in seconds, with the random number given (session.py)."""
        delay = backoff_seconds(self.attempt, random)
        self.attempt += 1
        return delay

    def reset(self) -> None:
        self.attempt = 0
