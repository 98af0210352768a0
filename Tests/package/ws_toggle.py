#!/usr/bin/env python3
"""Subscribe to a board over a raw WebSocket (RFC 6455, standard library only),
toggle one section and wait for the daemon's patch for it.

    ws_toggle.py PORT BOARD SECTION

Prints one JSON line: the snapshot's rev, the patch's rev and its ops.
Exit status 1 when anything is not as the protocol says (docs/PROTOCOL.md)."""
import base64, json, os, socket, struct, sys


def frame(text):
    payload = text.encode()
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_exact(sock, n):
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise EOFError("the daemon closed the connection")
        out += chunk
    return out


def read_message(sock):
    """The next text message (control frames skipped; no fragmentation expected)."""
    while True:
        b0, b1 = read_exact(sock, 2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", read_exact(sock, 2))[0]
        elif n == 127:
            n = struct.unpack("!Q", read_exact(sock, 8))[0]
        payload = read_exact(sock, n)
        if b0 & 0x0F == 1:
            return json.loads(payload)
        if b0 & 0x0F == 8:
            raise EOFError("close frame: %r" % payload)


def main():
    port, board, section = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: foldsync.v1\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += read_exact(sock, 1)
    if not head.startswith(b"HTTP/1.1 101"):
        sys.exit("no upgrade: %r" % head[:80])
    sock.sendall(frame(json.dumps({"type": "subscribe", "board": board})))
    snapshot = None
    while snapshot is None:
        m = read_message(sock)
        if m.get("type") == "snapshot" and m.get("board") == board:
            snapshot = m
        elif m.get("type") == "error":
            sys.exit("error: %r" % m)
    sock.sendall(frame(json.dumps({"type": "toggle", "board": board, "section": section})))
    while True:
        m = read_message(sock)
        if m.get("type") == "patch" and m.get("board") == board:
            print(json.dumps({"snapshotRev": snapshot.get("rev"), "rev": m.get("rev"), "ops": m.get("ops")}))
            return
        if m.get("type") == "error":
            sys.exit("error: %r" % m)


if __name__ == "__main__":
    main()
