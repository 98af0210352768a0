import FoldTestSupport
import Foundation
import Glibc
import Testing

/// A daemon whose process may open few descriptors: connections beyond what
/// it can hold are refused cleanly (no EMFILE busy loop), those inside keep
/// working, and room comes back when connections close.
@Suite struct DescriptorLimitTests {
    @Test func connectionsPastTheDescriptorLimitAreRefusedWithoutSpinning() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldsyncd-fd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Hard and soft limit 128 for the daemon alone.
        p.arguments = ["-c", "ulimit -n 128 && exec \"$0\" --listen 127.0.0.1:0 --db \"$1\"", DaemonProcess.binary, dir.appendingPathComponent("db").path]
        p.standardError = try FileHandle(forWritingTo: log)
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        defer {
            p.terminate()
            p.waitUntilExit()
        }
        var port = 0
        _ = eventually(timeout: 10) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard let r = text.range(of: "listening on 127.0.0.1:") else { return false }
            port = Int(text[r.upperBound...].prefix { $0.isNumber }) ?? 0
            return port > 0
        }
        try #require(port > 0, "the daemon did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")

        let first = try TestSocket(port: port)
        _ = try first.recvJSON()  // hello
        // Try far more connections than 128 descriptors allow.
        var open: [TestSocket] = [first]
        var refused = 0
        for _ in 0..<200 {
            do {
                let s = try TestSocket(port: port)
                _ = try s.recvJSON(timeout: 2)  // hello: really admitted
                open.append(s)
            } catch {
                refused += 1
            }
        }
        #expect(refused > 0, "all 200 were admitted under a 128-descriptor limit")
        #expect(open.count > 60, "the daemon held only \(open.count) connections")

        // No busy loop while the table is full: CPU over 2 s stays small.
        func cpuTicks() -> Int {
            let stat = (try? String(contentsOfFile: "/proc/\(p.processIdentifier)/stat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            return fields.count > 13 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
        }
        let before = cpuTicks()
        usleep(2_000_000)
        let ticks = cpuTicks() - before
        #expect(ticks < 50, "the daemon used \(ticks) ticks in 2 s with its table full")

        // Those inside still work; closing some makes room again.
        try first.send(Wire.subscribe())
        #expect(try first.recvSkippingPresence().type == "snapshot")
        for s in open.suffix(20) { try? s.sendClose() }
        open.removeLast(20)
        #expect(eventually(timeout: 10) { (try? TestSocket(port: port)) != nil }, "no room after connections closed")
    }
}
