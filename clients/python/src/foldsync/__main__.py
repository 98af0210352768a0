"""python -m foldsync watch URL BOARD [--token T | --token-command CMD]

Prints the board as JSON lines for shell pipelines: first
{"rev", "epoch", "state"}, then one line per change
{"rev", "epoch", "ops", "resynced"} (a resync adds "reason" and "state"; a
deletion is {"rev": null, "epoch", "deleted": true}). Each line is flushed.
Connection states go to stderr. Exits 0 on SIGINT/SIGTERM or when stdout
closes, 1 when the first connection or the subscribe is refused."""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
from typing import Any, Callable, Dict, List, Optional

from .change import Change
from .client import Client
from .connect import connect
from .errors import FoldError
from .states import ConnectionState
from .tokens import TokenSource


def change_line(c: Change) -> Dict[str, Any]:
    if c.deleted:
        return {"rev": None, "epoch": c.epoch, "deleted": True}
    line: Dict[str, Any] = {"rev": c.rev, "epoch": c.epoch, "ops": c.ops, "resynced": c.resynced}
    if c.resynced:
        line["reason"], line["state"] = c.reason, c.state
    return line


def emit(obj: Dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def command_token(cmd: str) -> Callable[[], Any]:
    """Runs CMD (through the shell) at every connect and refresh; its stdout is the token."""
    async def run() -> str:
        proc = await asyncio.create_subprocess_shell(cmd, stdout=subprocess.PIPE)
        out, _ = await proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"--token-command exited with {proc.returncode}")
        return out.decode().strip()
    return run


def report_state(s: ConnectionState) -> None:
    extra = f" ({s.reason}; next attempt in {s.delay_ms} ms)" if s.state == "disconnected" else ""
    print(f"foldsync: {s.state}{extra}", file=sys.stderr, flush=True)


async def watch(url: str, board_name: str, token: TokenSource) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        client: Client = await connect(url, token)
    except FoldError as e:
        print(f"foldsync: {e.code}: {e.message}", file=sys.stderr)
        return 1
    try:
        client.on_state(report_state)
        board = await client.subscribe(board_name)
        changes = board.changes()
        emit({"rev": board.rev, "epoch": board.epoch, "state": board.state})

        async def pump() -> None:
            async for change in changes:
                emit(change_line(change))
        pumping = asyncio.ensure_future(pump())
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({pumping, stopping}, return_when=asyncio.FIRST_COMPLETED)
        for t in (pumping, stopping):
            t.cancel()
        if pumping.done() and not pumping.cancelled() and pumping.exception() is not None:
            raise pumping.exception()  # type: ignore[misc]
        return 0
    except FoldError as e:
        print(f"foldsync: {e.code}: {e.message}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`| head -1`): not an error; keep Python from
        # complaining about the closed stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        await client.close()


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m foldsync", description="foldsync client commands")
    sub = p.add_subparsers(dest="command", required=True)
    w = sub.add_parser("watch", help="print a board's changes as JSON lines")
    w.add_argument("url", help="the daemon's WebSocket URL, e.g. ws://127.0.0.1:7681/ws")
    w.add_argument("board")
    who = w.add_mutually_exclusive_group()
    who.add_argument("--token", help="a token (prefer --token-command: argv is visible to others)")
    who.add_argument("--token-command", metavar="CMD", help="a command printing a token; run at every connect")
    args = p.parse_args(argv)
    token: TokenSource = command_token(args.token_command) if args.token_command else args.token
    return asyncio.run(watch(args.url, args.board, token))


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
