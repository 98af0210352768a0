import FoldTestSupport
import Foundation
import Testing

/// `foldsyncd`'s command line: help and version succeed, mistakes exit 2 with one line.
@Suite struct CommandLineTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the binary to completion (bounded: killed after 10 s).
    func run(_ args: [String]) throws -> Run {
        let r = try runTool(DaemonProcess.binary, args, timeout: 10)
        return Run(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    @Test func helpAndVersionSucceed() throws {
        let help = try run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--listen"))
        #expect(help.stdout.contains("--max-queue-frames"))
        let version = try run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.contains("foldsyncd"))
    }

    @Test(arguments: [
        ["--no-such-flag"],
        ["--listen", "nope"],
        ["--listen"],
        ["--max-queue-frames", "lots"],
        ["--log-level=loud"],
        ["stray"],
    ])
    func mistakesExitTwoWithOneLine(args: [String]) throws {
        let r = try run(args)
        #expect(r.status == 2, "\(args)")
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "\(args): \(r.stderr)")
    }
}
