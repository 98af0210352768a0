import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// SIGHUP re-reads the configuration: live changes without dropping a
/// connection; a bad file is refused as a whole; tokens change at once.
@Suite struct ReloadTests {
    @Test func aLoweredLimitAppliesLiveAndClientsStayConnected() throws {
        let d = try DaemonProcess(config: "max-sections = 10\n")
        defer { d.shutdown() }
        let editor = try d.connect(), watcher = try d.connect()
        try watcher.subscribe()
        #expect(try editor.answer(Wire.action(.addSection, id: "a1", #""section":{"title":"four"}"#), id: "a1").type == "ack")
        #expect(try watcher.waitFor(type: "patch").rev == 1)

        try d.writeConfig("max-sections = 4\nlog-level = debug\n")
        let mark = d.logMark
        d.signal(SIGHUP)
        #expect(d.waitForLog("configuration reloaded", after: mark), "\(d.log(after: mark))")
        #expect(d.log(after: mark).contains("max-sections 10 -> 4"), "\(d.log(after: mark))")

        // The same connections, still open, under the new limit.
        let refused = try editor.answer(Wire.action(.addSection, id: "a2", #""section":{"title":"five"}"#), id: "a2")
        #expect(refused.code == "invalid", "\(refused)")
        #expect(try editor.answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").type == "ack")
        #expect(try watcher.waitFor(type: "patch").rev == 2)
        #expect(editor.closeCode == nil && !editor.eof && watcher.closeCode == nil && !watcher.eof)

        // And raised again.
        try d.writeConfig("max-sections = 5\n")
        let mark2 = d.logMark
        d.signal(SIGHUP)
        #expect(d.waitForLog("configuration reloaded", after: mark2))
        #expect(try editor.answer(Wire.action(.addSection, id: "a3", #""section":{"title":"five"}"#), id: "a3").type == "ack")
        #expect(try watcher.waitFor(type: "patch").rev == 3)
    }

    @Test func aBadFileIsRefusedAsAWholeAndTheOldOneStays() throws {
        let n = try NotifySocket(abstract: true)
        let d = try DaemonProcess(environment: ["NOTIFY_SOCKET": n.address], config: "max-sections = 4\n")
        defer { d.shutdown() }
        #expect(n.waitFor(line: "READY=1") != nil)
        let c = try d.connect()
        try c.subscribe()

        // One good line (that must not apply) and two bad ones.
        try d.writeConfig("max-sections = 100\nmax-items = lots\nno-such-key = 1\n")
        let mark = d.logMark, before = n.messages.count
        d.signal(SIGHUP)
        #expect(d.waitForLog("reload refused", after: mark), "\(d.log(after: mark))")
        let log = d.log(after: mark)
        #expect(log.contains("no-such-key") && log.contains("max-items"), "\(log)")
        #expect(!log.contains("configuration reloaded"), "\(log)")
        let ready = n.waitFor(line: "READY=1", from: before)
        let status = ready.map { n.messages[$0] } ?? ""
        #expect(status.contains("STATUS=") && status.contains("last reload refused"), "\(n.messages.suffix(3))")

        // Old limit still in force, connection still open.
        #expect(try c.answer(Wire.action(.addSection, id: "a1", #""section":{"title":"four"}"#), id: "a1").type == "ack")
        #expect(try c.answer(Wire.action(.addSection, id: "a2", #""section":{"title":"five"}"#), id: "a2").code == "invalid")
        #expect(c.closeCode == nil && !c.eof)

        // A good file afterwards clears the refusal from STATUS=.
        try d.writeConfig("max-sections = 5\n")
        let mark2 = d.logMark, before2 = n.messages.count
        d.signal(SIGHUP)
        #expect(d.waitForLog("configuration reloaded", after: mark2))
        let ready2 = n.waitFor(line: "READY=1", from: before2)
        #expect(ready2.map { !n.messages[$0].contains("refused") } == true, "\(n.messages.suffix(3))")
        #expect(try c.answer(Wire.action(.addSection, id: "a3", #""section":{"title":"five"}"#), id: "a3").type == "ack")
    }

    @Test func aTokenAddedByReloadWorksForANewConnection() throws {
        let first = "token = \(Tokens.spec("admin", "read,fold,edit,admin", Tokens.admin))\n"
        let d = try DaemonProcess(config: first)
        defer { d.shutdown() }
        let old = try d.connect(headers: Tokens.bearer(Tokens.admin))
        #expect(try old.recvJSON().type == "authenticated")
        try old.subscribe()

        // Not yet known: the upgrade is refused.
        #expect(try TestSocket.refusal(port: d.port, headers: Tokens.bearer(Tokens.late)) == 401)
        #expect(try d.http("GET", "/api/boards", headers: Tokens.bearer(Tokens.late)).status == 401)

        try d.writeConfig(first + "token = \(Tokens.spec("late", "read,fold", Tokens.late))\n")
        let mark = d.logMark
        d.signal(SIGHUP)
        #expect(d.waitForLog("configuration reloaded", after: mark), "\(d.log(after: mark))")
        #expect(!d.stderr.contains(Tokens.late), "a secret was logged")

        let fresh = try d.connect(headers: Tokens.bearer(Tokens.late))
        let auth = try fresh.recvJSON()
        #expect(auth.type == "authenticated" && auth["name"]?.stringValue == "late", "\(auth)")
        try fresh.subscribe()
        #expect(try fresh.answer(Wire.action(.toggle, id: "t", #""section":"s1""#), id: "t").type == "ack")
        #expect(try fresh.answer(Wire.action(.setTitle, id: "e", #""section":"s1","title":"x""#), id: "e").code == "forbidden")
        #expect(try d.http("GET", "/api/boards", headers: Tokens.bearer(Tokens.late)).status == 200)
        // The connection authenticated before the reload kept its rights and its subscription.
        #expect(try old.waitFor(type: "patch").rev == 1)
        #expect(try old.answer(Wire.action(.toggle, id: "o", #""section":"s1""#), id: "o").type == "ack")
    }

    @Test func aTokenRemovedByReloadLosesItsRightsOnOpenConnections() throws {
        let admin = "token = \(Tokens.spec("admin", "read,fold,edit,admin", Tokens.admin))\n"
        let folder = "token = \(Tokens.spec("folder", "read,fold", Tokens.folder))\n"
        let d = try DaemonProcess(config: admin + folder + "log-level = info\n")
        defer { d.shutdown() }
        let c = try d.connect(headers: Tokens.bearer(Tokens.folder))
        #expect(try c.recvJSON()["name"]?.stringValue == "folder")
        #expect(try c.answer(Wire.action(.toggle, id: "t1", #""section":"s0""#), id: "t1").type == "ack")
        #expect(!d.stderr.contains("connection "), "no per-connection debug lines at info")

        // Drop the folder token and turn on debug logging.
        try d.writeConfig(admin + "log-level = debug\n")
        let mark = d.logMark
        d.signal(SIGHUP)
        #expect(d.waitForLog("configuration reloaded", after: mark), "\(d.log(after: mark))")
        #expect(d.log(after: mark).contains("log-level info -> debug"), "\(d.log(after: mark))")
        let refused = try c.answer(Wire.action(.toggle, id: "t2", #""section":"s0""#), id: "t2")
        #expect(refused.code == "forbidden", "\(refused)")
        #expect(c.closeCode == nil && !c.eof)
        #expect(try d.http("GET", "/api/boards", headers: Tokens.bearer(Tokens.folder)).status == 401)
        // Debug lines now appear (one per connection).
        _ = try d.connect(headers: Tokens.bearer(Tokens.admin))
        #expect(d.waitForLog("connection ", after: mark), "\(d.log(after: mark))")
    }
}
