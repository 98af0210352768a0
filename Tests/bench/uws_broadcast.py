"""The benchmark's peer: a uWebSockets broadcaster (PyPI socketify), measured
by `foldsync-bench --protocol broadcast` beside foldsyncd in one window.

Protocol (plain broadcast, no JSON): a client sends `subscribe` (or
`subscribe TOPIC`) and gets `subscribed`; any other text message is published
to topic `b`, framed once and corked per socket by uWS in C++ (Python runs once
per published message, never per subscriber).

Made fair, per Tests/bench/README.md: libuv's own blocking loop (socketify's
App.run() polls it from asyncio and spins a core), 16 MiB backpressure (uWS
drops messages silently past the default 64 KiB), no compression, an
exclusive port on 127.0.0.1. Prints `listening on 127.0.0.1:PORT`.
"""
import argparse
import signal

from socketify import App, CompressOptions, OpCode

LIBUS_LISTEN_EXCLUSIVE_PORT = 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = ap.parse_args()

    app = App()

    def message(ws, msg, opcode):
        text = msg.decode("utf-8", "replace") if isinstance(msg, (bytes, bytearray)) else msg
        if text.startswith("subscribe"):
            ws.subscribe(text[10:] or "b")
            ws.send("subscribed", OpCode.TEXT)
        else:
            app.publish("b", text, OpCode.TEXT)

    app.ws("/*", {
        "compression": CompressOptions.DISABLED,
        "max_payload_length": 64 * 1024,
        "idle_timeout": 0,
        "max_backpressure": 16 * 1024 * 1024,
        "message": message,
    })

    def listening(config):
        print(f"listening on 127.0.0.1:{config.port}", flush=True)

    app.listen({"port": args.port, "host": "127.0.0.1", "options": LIBUS_LISTEN_EXCLUSIVE_PORT}, listening)
    # No Python signal handlers: they would never run inside libuv's blocking
    # loop, and the default action ends the process at once.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    app.loop.uv_loop.run()


if __name__ == "__main__":
    main()
