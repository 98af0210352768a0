import FoldTestSupport
import Foundation
import Testing

/// `wss://` against a daemon serving TLS with a self-signed certificate made
/// here: refused by default (the certificate is not trusted), accepted with
/// `--insecure`, for commands and `watch` alike.
@Suite struct TLSCommandTests {
    static func selfSignedCertificate(in dir: URL) throws -> (cert: String, key: String) {
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                       "-subj", "/CN=localhost", "-keyout", key, "-out", cert]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("openssl is needed to make a test certificate") }
        return (cert, key)
    }

    @Test func commandsWorkOverWSS() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (cert, key) = try Self.selfSignedCertificate(in: dir)
        let d = try DaemonProcess(["--tls-cert", cert, "--tls-key", key])
        let url = "wss://127.0.0.1:\(d.port)/ws"

        let untrusted = try foldsync(["show", "--url", url])
        #expect(untrusted.status == 1, "a self-signed certificate is not trusted without --insecure: \(untrusted)")

        let shown = try foldsync(["show", "--url", url, "--insecure", "--json"])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.contains(#""board":"default""#), "\(shown.stdout)")

        let toggled = try foldsync(["toggle", "s1", "--url", url, "--insecure"])
        #expect(toggled.status == 0, "\(toggled)")
        let after = try foldsync(["dump", "--url", url, "--insecure"])
        #expect(after.stdout.contains(#""id":"s1","title":"1","items":["222","333"],"expanded":true"#), "\(after.stdout)")
    }
}
