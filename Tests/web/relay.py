"""A TCP relay on 127.0.0.1 that adds latency: every chunk either way is
forwarded `delay` seconds after it came, in the order it came, so that a
page served through it waits a real round trip for each answer (the
optimistic state's browser test). It runs its own asyncio loop on a thread;
`Relay(port, delay).start()` returns once it listens on `relay.port`."""
import asyncio
import threading


class Relay:
    def __init__(self, target_port, delay):
        self.target_port = target_port
        self.delay = delay
        self.port = None
        self.loop = None
        self.server = None
        self.thread = None
        self.ready = threading.Event()

    def start(self):
        self.thread = threading.Thread(target=self.run, name="relay", daemon=True)
        self.thread.start()
        if not self.ready.wait(10):
            raise AssertionError("the relay did not start")
        return self

    def stop(self):
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)

    def run(self):
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self.listen())
        self.ready.set()
        try:
            self.loop.run_forever()
        finally:
            self.server.close()
            tasks = asyncio.all_tasks(self.loop)
            for t in tasks:
                t.cancel()
            self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self.loop.close()

    async def listen(self):
        self.server = await asyncio.start_server(self.pair, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def pair(self, client_reader, client_writer):
        try:
            daemon_reader, daemon_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_writer.close()
            return
        try:
            await asyncio.gather(self.pipe(client_reader, daemon_writer), self.pipe(daemon_reader, client_writer),
                                 return_exceptions=True)
        except asyncio.CancelledError:   # the relay stops
            for w in (client_writer, daemon_writer):
                w.close()

    async def pipe(self, reader, writer):
        """One direction: a reader that stamps each chunk with when it is due,
        and a writer that sends them in order once due (an end is due too)."""
        queue = asyncio.Queue()
        loop = asyncio.get_running_loop()

        async def send():
            while True:
                due, chunk = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if chunk is None:
                    break
                writer.write(chunk)
                await writer.drain()
            writer.close()

        sender = asyncio.ensure_future(send())
        try:
            while True:
                chunk = await reader.read(65536)
                queue.put_nowait((loop.time() + self.delay, chunk or None))
                if not chunk:
                    break
        except OSError:
            queue.put_nowait((loop.time(), None))
        try:
            await sender
        except OSError:
            pass
