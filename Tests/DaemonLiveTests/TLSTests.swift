import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// https:// and wss:// with a self-signed certificate made here; SIGHUP
/// picks up a renewed certificate without dropping connections. The raw
/// TestSocket speaks no TLS: curl, openssl and Python's ssl do.
@Suite struct TLSTests {
    /// A self-signed certificate and key for CN=`name`, written to `cert` and `key`.
    static func makeCertificate(cn: String, cert: String, key: String) throws {
        let r = try runTool("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(cn)",
                                        "-days", "2", "-keyout", key, "-out", cert])
        try #require(r.status == 0, "openssl req: \(r.stderr)")
    }

    /// SHA-256 of the certificate's DER encoding, lower-case hex.
    static func fingerprint(_ cert: String) throws -> String {
        let r = try runTool("openssl", ["x509", "-in", cert, "-noout", "-fingerprint", "-sha256"])
        try #require(r.status == 0, "openssl x509: \(r.stderr)")
        let hex = r.stdout.split(separator: "=").last.map { $0.filter(\.isHexDigit).lowercased() } ?? ""
        try #require(hex.count == 64, "fingerprint: \(r.stdout)")
        return hex
    }

    /// The subject the daemon presents to a new TLS connection.
    static func servedSubject(port: Int) throws -> String {
        let r = try runTool("sh", ["-c",
            "openssl s_client -connect 127.0.0.1:\(port) -servername localhost </dev/null 2>/dev/null | openssl x509 -noout -subject"])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Connects with wss://, upgrades, reads hello; sends SIGHUP to `pid`;
    /// polls new TLS connections until one presents the certificate with
    /// fingerprint `want`; then subscribes on the first connection and
    /// prints a JSON summary.
    static let client = #"""
    import base64, hashlib, json, os, signal, socket, ssl, struct, sys, time
    port, pid, want = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    def tls():
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        return ctx.wrap_socket(s, server_hostname="localhost")
    def fp(t):
        return hashlib.sha256(t.getpeercert(binary_form=True)).hexdigest()
    out = {}
    t = tls()
    out["before"] = fp(t)
    key = base64.b64encode(os.urandom(16)).decode()
    t.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: https://127.0.0.1:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
               "Sec-WebSocket-Protocol: foldsync.v1\r\n\r\n" % (port, port, key)).encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = t.recv(4096)
        if not d: break
        buf += d
    head, _, buf = buf.partition(b"\r\n\r\n")
    out["status"] = head.split(b"\r\n")[0].decode()
    accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
    out["accept_ok"] = ("sec-websocket-accept: " + accept).lower() in head.decode().lower()
    def need(n):
        global buf
        while len(buf) < n:
            d = t.recv(65536)
            if not d: raise EOFError()
            buf += d
    def frame():
        global buf
        need(2)
        n = buf[1] & 0x7F; off = 2
        if n == 126: need(4); n = struct.unpack(">H", buf[2:4])[0]; off = 4
        elif n == 127: need(10); n = struct.unpack(">Q", buf[2:10])[0]; off = 10
        need(off + n)
        payload = buf[off:off + n]; buf = buf[off + n:]
        return payload.decode()
    out["hello"] = json.loads(frame())["type"]
    os.kill(pid, signal.SIGHUP)
    out["after"] = None
    deadline = time.time() + 15
    while time.time() < deadline:
        u = tls(); f = fp(u); u.close()
        if f == want:
            out["after"] = f; break
        time.sleep(0.1)
    msg = b'{"type":"subscribe","board":"default"}'
    mask = os.urandom(4)
    t.sendall(bytes([0x81, 0x80 | len(msg)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(msg)))
    out["after_reload"] = None
    for _ in range(10):
        m = json.loads(frame())
        if m["type"] == "snapshot":
            out["after_reload"] = "snapshot"; break
    print(json.dumps(out))
    """#

    @Test func httpsAndWssWithACertificateRenewedOnSIGHUP() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        try Self.makeCertificate(cn: "first.foldsync.test", cert: cert, key: key)
        let first = try Self.fingerprint(cert)

        let d = try DaemonProcess(["--tls-cert", cert, "--tls-key", key])
        defer { d.shutdown() }
        #expect(d.stderr.contains("wss://"), "\(d.stderr)")

        let health = try runTool("curl", ["-sk", "--max-time", "10", "-w", "\n%{http_code}", "https://127.0.0.1:\(d.port)/healthz"])
        #expect(health.status == 0, "curl: \(health.stderr)")
        #expect(health.stdout.hasSuffix("\n200") && health.stdout.contains(#""status":"ok""#), "\(health.stdout)")
        // Plain HTTP on the TLS port gets no answer from the API.
        let plain = try runTool("curl", ["-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(d.port)/healthz"])
        #expect(plain.stdout != "200", "plain http was served on the TLS port")
        #expect(try Self.servedSubject(port: d.port).contains("first.foldsync.test"))

        // Renew: new files at the same paths, then the script sends SIGHUP.
        try Self.makeCertificate(cn: "second.foldsync.test", cert: cert, key: key)
        let second = try Self.fingerprint(cert)
        #expect(first != second)
        let script = dir.appendingPathComponent("client.py").path
        try Self.client.write(toFile: script, atomically: true, encoding: .utf8)
        let r = try runTool("python3", [script, String(d.port), String(d.pid), second], timeout: 60)
        #expect(r.status == 0, "python: \(r.stderr)")
        let out = try JSONParser.parse(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), maxDepth: 8)
        #expect(out["before"]?.stringValue == first, "\(r.stdout)")
        #expect(out["status"]?.stringValue?.hasPrefix("HTTP/1.1 101") == true, "\(r.stdout)")
        #expect(out["accept_ok"]?.boolValue == true)
        #expect(out["hello"]?.stringValue == "hello")
        #expect(out["after"]?.stringValue == second, "the renewed certificate was not served: \(r.stdout)\n\(d.stderr)")
        #expect(out["after_reload"]?.stringValue == "snapshot", "the wss connection did not survive the reload: \(r.stdout)")
        #expect(d.stderr.contains("certificate re-read"), "\(d.stderr)")
        #expect(try Self.servedSubject(port: d.port).contains("second.foldsync.test"))
    }

    @Test func tlsCertWithoutKeyIsAConfigurationError() throws {
        let r = try DaemonProcess.runOnce(["--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent.pem", "--check-config"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("tls-key"), "\(r.stderr)")
    }
}
