import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// Tokens: every way to present one, each permission, board globs, the
/// auth timeout, hash-token, what stays open, and the secure default.
@Suite struct TokenTests {
    static func daemon(_ extra: [String] = []) throws -> DaemonProcess {
        try DaemonProcess(Tokens.flags + extra)
    }

    @Test func everyWayToPresentAToken() throws {
        let d = try Self.daemon()
        defer { d.shutdown() }
        // Authorization header on the upgrade.
        let h = try d.connect(headers: Tokens.bearer(Tokens.folder))
        let ha = try h.recvJSON()
        #expect(ha.type == "authenticated" && ha["name"]?.stringValue == "folder", "\(ha)")
        #expect(ha["permissions"]?.arrayValue?.compactMap(\.stringValue) == ["read", "fold"], "\(ha)")
        #expect(ha["boards"]?.stringValue == "*")
        try h.subscribe()

        // A second subprotocol token.SECRET: the daemon answers foldsync.v1 alone.
        let p = try d.connect(protocols: ["foldsync.v1", "token.\(Tokens.editor)"])
        #expect(p.negotiated == "foldsync.v1")
        #expect(try p.recvJSON()["name"]?.stringValue == "editor")
        try p.subscribe()

        // A first message {"type":"auth"}.
        let m = try d.connect()
        try m.send(#"{"type":"auth","token":\#(Wire.q(Tokens.admin))}"#)
        let ma = try m.recvJSON()
        #expect(ma.type == "authenticated" && ma["name"]?.stringValue == "admin", "\(ma)")
        #expect(ma["permissions"]?.arrayValue?.compactMap(\.stringValue) == ["read", "fold", "edit", "admin"])
        try m.subscribe()

        // A wrong secret by message: forbidden, and still nothing allowed.
        let w = try d.connect()
        try w.send(#"{"type":"auth","token":"wrong"}"#)
        #expect(try w.recvJSON().code == "forbidden")
        try w.send(Wire.subscribe())
        #expect(try w.recvSkippingPresence().code == "forbidden")
        let act = try w.answer(Wire.action(.toggle, id: "x", #""section":"s0""#), id: "x")
        #expect(act.code == "forbidden", "\(act)")
        // ... but it may still authenticate properly afterwards.
        try w.send(#"{"type":"auth","token":\#(Wire.q(Tokens.reader))}"#)
        #expect(try w.recvJSON()["name"]?.stringValue == "reader")
        try w.subscribe()

        // ?token= is refused by default...
        let q = try d.connect(path: "/ws?token=\(Tokens.admin)")
        try q.send(Wire.subscribe())
        #expect(try q.recvSkippingPresence().code == "forbidden")
        // A bad header secret refuses the upgrade: 401 (UpgradeRefusalTests reads the answer).
        #expect(try TestSocket.refusal(port: d.port, headers: Tokens.bearer("nope")) == 401)
        #expect(!d.stderr.contains(Tokens.admin) && !d.stderr.contains(Tokens.folder), "a secret was logged")
        let metrics = try d.http("GET", "/metrics", headers: Tokens.bearer(Tokens.reader)).text
        #expect((metric("foldsync_auth_failures_total", in: metrics) ?? 0) >= 1, "\(metrics)")
    }

    @Test func queryTokenOnlyWhenAllowed() throws {
        let d = try Self.daemon(["--allow-query-token", "true"])
        defer { d.shutdown() }
        let q = try d.connect(path: "/ws?token=\(Tokens.admin)")
        #expect(try q.recvJSON()["name"]?.stringValue == "admin")
        try q.subscribe()
    }

    @Test func eachPermissionAllowsExactlyItsActions() throws {
        let d = try Self.daemon()
        defer { d.shutdown() }
        let replace = Wire.action(.replace, id: "r", #""state":{"mode":"multi","sections":[{"id":"x","title":"X","items":[],"expanded":false}]}"#)
        let board = #"{"mode":"single","sections":[{"id":"a","title":"A","items":[],"expanded":false}]}"#

        // read: subscribe and GET; no toggle.
        let r = try d.connect(headers: Tokens.bearer(Tokens.reader))
        #expect(try r.recvJSON().type == "authenticated")
        try r.subscribe()
        #expect(try r.answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").code == "forbidden")
        #expect(try d.http("GET", "/api/boards/default", headers: Tokens.bearer(Tokens.reader)).status == 200)
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#,
                           headers: Tokens.bearer(Tokens.reader)).status == 403)

        // fold: toggle, expand, collapse, expandAll, collapseAll (multi mode, set by admin); no setTitle.
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setMode","mode":"multi"}"#,
                           headers: Tokens.bearer(Tokens.admin)).status == 200)
        let f = try d.connect(headers: Tokens.bearer(Tokens.folder))
        #expect(try f.recvJSON().type == "authenticated")
        #expect(try f.answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").type == "ack")
        for (type, fields): (ActionName, String) in [(.expand, #""section":"s1""#), (.collapse, #""section":"s1""#), (.expandAll, ""), (.collapseAll, "")] {
            let a = try f.answer(Wire.action(type, id: type.rawValue, fields), id: type.rawValue)
            #expect(a.type == "ack", "\(type): \(a)")
        }
        #expect(try f.answer(Wire.action(.setTitle, id: "e", #""section":"s0","title":"no""#), id: "e").code == "forbidden")
        #expect(try f.answer(Wire.action(.setMode, id: "m", #""mode":"multi""#), id: "m").code == "forbidden")

        // edit: setTitle, setMode, addSection; no replace, PUT or DELETE.
        let e = try d.connect(headers: Tokens.bearer(Tokens.editor))
        #expect(try e.recvJSON().type == "authenticated")
        #expect(try e.answer(Wire.action(.setTitle, id: "e", #""section":"s0","title":"yes""#), id: "e").type == "ack")
        #expect(try e.answer(Wire.action(.setMode, id: "m", #""mode":"single""#), id: "m").type == "ack")
        #expect(try e.answer(Wire.action(.addSection, id: "a", #""section":{"title":"new"}"#), id: "a").type == "ack")
        #expect(try e.answer(replace, id: "r").code == "forbidden")
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s1","title":"http"}"#,
                           headers: Tokens.bearer(Tokens.editor)).status == 200)
        #expect(try d.http("PUT", "/api/boards/other", body: board, headers: Tokens.bearer(Tokens.editor)).status == 403)
        #expect(try d.http("DELETE", "/api/boards/default", headers: Tokens.bearer(Tokens.editor)).status == 403)
        #expect(try d.http("GET", "/api/boards/other", headers: Tokens.bearer(Tokens.editor)).status == 404)

        // admin: all of it.
        let a = try d.connect(headers: Tokens.bearer(Tokens.admin))
        #expect(try a.recvJSON().type == "authenticated")
        #expect(try a.answer(replace, id: "r").type == "ack")
        let put = try d.http("PUT", "/api/boards/other", body: board, headers: Tokens.bearer(Tokens.admin))
        #expect((200...201).contains(put.status), "\(put.status) \(put.text)")
        let del = try d.http("DELETE", "/api/boards/other", headers: Tokens.bearer(Tokens.admin))
        #expect((200...204).contains(del.status), "\(del.status) \(del.text)")

        // No token or a wrong one over HTTP: 401.
        #expect(try d.http("GET", "/api/boards").status == 401)
        #expect(try d.http("GET", "/api/boards/default").status == 401)
        #expect(try d.http("GET", "/api/boards/default", headers: Tokens.bearer("wrong")).status == 401)
        #expect(try d.http("PUT", "/api/boards/x", body: board).status == 401)
        let refused = try d.http("GET", "/metrics", headers: Tokens.bearer(Tokens.admin)).text
        #expect(refused.contains(#"foldsync_actions_refused_total{code="forbidden"}"#), "\(refused)")
    }

    @Test func aBoardGlobLimitsWhatATokenReaches() throws {
        let d = try Self.daemon()
        defer { d.shutdown() }
        let board = #"{"mode":"multi","sections":[{"id":"a","title":"A","items":[],"expanded":false}]}"#
        #expect(try d.http("PUT", "/api/boards/ops-a", body: board, headers: Tokens.bearer(Tokens.admin)).status < 300)
        #expect(try d.http("PUT", "/api/boards/ops-b", body: board, headers: Tokens.bearer(Tokens.ops)).status < 300)
        #expect(try d.http("PUT", "/api/boards/dev", body: board, headers: Tokens.bearer(Tokens.ops)).status == 403)

        let list = try d.http("GET", "/api/boards", headers: Tokens.bearer(Tokens.ops)).json()
        #expect(list["boards"]?.arrayValue?.compactMap { $0["board"]?.stringValue } == ["ops-a", "ops-b"], "\(list)")
        let all = try d.http("GET", "/api/boards", headers: Tokens.bearer(Tokens.reader)).json()
        #expect(all["boards"]?.arrayValue?.compactMap { $0["board"]?.stringValue } == ["default", "ops-a", "ops-b"], "\(all)")
        #expect(try d.http("GET", "/api/boards/default", headers: Tokens.bearer(Tokens.ops)).status == 403)
        #expect(try d.http("GET", "/api/boards/ops-a", headers: Tokens.bearer(Tokens.ops)).status == 200)

        let c = try d.connect(headers: Tokens.bearer(Tokens.ops))
        let auth = try c.recvJSON()
        #expect(auth["boards"]?.stringValue == "ops-*")
        try c.send(Wire.subscribe("default"))
        #expect(try c.recvSkippingPresence().code == "forbidden")
        #expect(try c.answer(Wire.action(.toggle, board: "default", id: "d", #""section":"s0""#), id: "d").code == "forbidden")
        try c.subscribe("ops-a")
        #expect(try c.answer(Wire.action(.toggle, board: "ops-a", id: "o", #""section":"a""#), id: "o").type == "ack")
        #expect(try c.answer(Wire.action(.replace, board: "ops-a", id: "r", #""state":\#(board)"#), id: "r").type == "ack")
    }

    @Test func aConnectionWithoutATokenIsClosedAfterTheAuthTimeout() throws {
        let d = try Self.daemon(["--auth-timeout", "1"])
        defer { d.shutdown() }
        let idle = try d.connect()
        let authed = try d.connect(headers: Tokens.bearer(Tokens.reader))
        #expect(try idle.waitForClose(timeout: 10) == 1008)
        // The authenticated one stays.
        #expect(try authed.recvJSON().type == "authenticated")
        try authed.subscribe()
        #expect(authed.closeCode == nil && !authed.eof)
        let m = try d.http("GET", "/metrics", headers: Tokens.bearer(Tokens.reader)).text
        #expect((metric("foldsync_auth_timeouts_total", in: m) ?? 0) >= 1, "\(m)")
    }

    @Test func hashTokenPrintsTheSHA256OfTheSecret() throws {
        let secret = "correct horse battery staple"
        let r = try DaemonProcess.runOnce(["hash-token"], stdin: secret + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        let sum = try runTool("sha256sum", [], stdin: secret)
        #expect(sum.status == 0, "sha256sum: \(sum.stderr)")
        let expected = String(sum.stdout.split(separator: " ").first ?? "")
        #expect(expected.count == 64)
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
        #expect(!r.stdout.contains(secret) && !r.stderr.contains(secret))
        // Without a trailing newline too; nothing on stdin is an error.
        #expect(try DaemonProcess.runOnce(["hash-token"], stdin: secret).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected)
        #expect(try DaemonProcess.runOnce(["hash-token"], stdin: "").status != 0)
    }

    @Test func healthAndStaticFilesAreOpenMetricsNeedAToken() throws {
        let web = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: web, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: web) }
        try "<!doctype html><title>t</title>".write(to: web.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        let d = try Self.daemon(["--web-root", web.path])
        defer { d.shutdown() }
        #expect(try d.http("GET", "/healthz").status == 200)
        #expect(try d.http("GET", "/readyz").status == 200)
        #expect(try d.http("GET", "/").status == 200)
        #expect(try d.http("GET", "/index.html").status == 200)
        #expect(try d.http("GET", "/metrics").status == 401)
        #expect(try d.http("GET", "/metrics", headers: Tokens.bearer("wrong")).status == 401)
        let m = try d.http("GET", "/metrics", headers: Tokens.bearer(Tokens.reader))
        #expect(m.status == 200 && m.text.contains("foldsync_connections"))

        let open = try DaemonProcess(Tokens.flags, config: "metrics-public = true\n")
        defer { open.shutdown() }
        #expect(try open.http("GET", "/metrics").status == 200)
        #expect(try open.http("GET", "/api/boards").status == 401)
    }

    @Test func withoutTokensOnlyLoopbackUnlessAnonymousIsAllowed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldsyncd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("db").path
        let r = try DaemonProcess.runOnce(["--listen", "0.0.0.0:0", "--db", db])
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(r.stderr)")
        #expect(r.stderr.contains("allow-anonymous"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db), "the refusal came before opening the store")
        let v6 = try DaemonProcess.runOnce(["--listen", "[::]:0", "--db", db])
        #expect(v6.status == 2, "\(v6.stderr)")

        // Allowed explicitly: it starts and serves through loopback.
        let anon = try DaemonProcess(["--allow-anonymous", "true"], listen: "0.0.0.0:0")
        defer { anon.shutdown() }
        let c = try anon.connect()
        try c.subscribe()
        #expect(try anon.http("GET", "/api/boards").status == 200)

        // With a token, any address is fine without allow-anonymous.
        let tokened = try DaemonProcess(Tokens.flags, listen: "0.0.0.0:0")
        defer { tokened.shutdown() }
        #expect(try tokened.http("GET", "/api/boards").status == 401)
    }
}
