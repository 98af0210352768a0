import Foundation
import Testing

/// The unit file, checked by systemd's own tools (no PID 1 needed): it
/// verifies without a single warning and its exposure score is at most 2.5.
@Suite struct SystemdUnitTests {
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { dir.deleteLastPathComponent() }
        return dir
    }()

    /// `systemd-analyze` needs the ExecStart binary to exist: verify a staged
    /// copy of the unit whose ExecStart is the binary just built.
    func stagedUnit() throws -> URL {
        let unit = try String(contentsOf: Self.root.appendingPathComponent("systemd/foldsyncd.service"), encoding: .utf8)
        let binary = Self.root.appendingPathComponent(".build/debug/foldsyncd").path
        #expect(FileManager.default.isExecutableFile(atPath: binary), "build the daemon first")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let staged = dir.appendingPathComponent("foldsyncd.service")
        try unit.replacingOccurrences(of: "/usr/local/bin/foldsyncd", with: binary).write(to: staged, atomically: true, encoding: .utf8)
        return staged
    }

    func analyze(_ args: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["systemd-analyze"] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func unitDeclaresWhatTheDaemonNeeds() throws {
        let unit = try String(contentsOf: Self.root.appendingPathComponent("systemd/foldsyncd.service"), encoding: .utf8)
        for line in ["Type=notify", "ExecReload=/bin/kill -HUP $MAINPID", "ExecStartPre=/usr/local/bin/foldsyncd --check-config", "Restart=on-failure", "StateDirectory=foldsync",
                     "DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                     "PrivateDevices=yes", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
                     "SystemCallFilter=@system-service", "CapabilityBoundingSet=", "MemoryDenyWriteExecute=yes"] {
            #expect(unit.split(separator: "\n").contains { $0 == line }, "missing \(line)")
        }
        let nofile = unit.split(separator: "\n").first { $0.hasPrefix("LimitNOFILE=") }.flatMap { Int($0.dropFirst("LimitNOFILE=".count)) }
        #expect((nofile ?? 0) >= 100_000)
        let watchdog = unit.split(separator: "\n").first { $0.hasPrefix("WatchdogSec=") }
        #expect(watchdog != nil)
    }

    @Test func verifiesWithoutWarnings() throws {
        let (status, output) = try analyze(["verify", try stagedUnit().path])
        #expect(status == 0)
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "", "systemd-analyze verify said: \(output)")
    }

    @Test func exposureScoreIsAtMost2_5() throws {
        let (status, output) = try analyze(["security", "--offline=true", try stagedUnit().path])
        #expect(status == 0, "\(output)")
        // "→ Overall exposure level for foldsyncd.service: 1.2 OK"
        let line = output.split(separator: "\n").first { $0.contains("Overall exposure level") }
        let score = line.flatMap { l in l.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) } }
        #expect(score != nil, "no score in: \(output)")
        #expect((score ?? 10) <= 2.5)
    }
}

/// The daily backup: a oneshot service run by a timer, both verified by
/// systemd's own tool, the service as the daemon's dynamic user.
@Suite struct BackupUnitTests {
    @Test func theBackupServiceAndTimerVerifyWithoutWarnings() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-backup-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = SystemdUnitTests.root.appendingPathComponent(".build/debug/foldsyncd").path
        var staged: [String] = []
        for name in ["foldsync-backup.service", "foldsync-backup.timer"] {
            let text = try String(contentsOf: SystemdUnitTests.root.appendingPathComponent("systemd/\(name)"), encoding: .utf8)
            let path = dir.appendingPathComponent(name)
            try text.replacingOccurrences(of: "/usr/local/bin/foldsyncd", with: binary).write(to: path, atomically: true, encoding: .utf8)
            staged.append(path.path)
        }
        let service = try String(contentsOfFile: staged[0], encoding: .utf8)
        for line in ["Type=oneshot", "DynamicUser=yes", "User=foldsyncd", "StateDirectory=foldsync foldsync-backup"] {
            #expect(service.split(separator: "\n").contains { $0 == line }, "missing \(line)")
        }
        #expect(service.contains("foldsyncd backup --db /var/lib/foldsync/foldsync.db"))
        let timer = try String(contentsOfFile: staged[1], encoding: .utf8)
        #expect(timer.contains("OnCalendar=") && timer.contains("Persistent=true"))
        let (status, output) = try SystemdUnitTests().analyze(["verify"] + staged)
        #expect(status == 0, "\(output)")
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "", "systemd-analyze verify said: \(output)")
    }
}
