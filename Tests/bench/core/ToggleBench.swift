// Compiled into module FoldCore itself (run.sh), so no import of it.
import Glibc

/// What one fold costs the core on a big board: `toggle` applied (the new
/// board and its JSON Patch) and the patch encoded, on 1,000 sections of 10
/// items, single mode. Prints figures and asserts nothing; the unit test
/// (FoldActionTests.toggleOnABigBoardIsSmall) checks what the patches say.
/// Run: Tests/bench/core/run.sh (a release build of FoldCore's sources).
@main struct ToggleBench {
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func main() throws {
        let sections = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000 : 1_000
        var board = Board(mode: .single, sections: (0..<sections).map { i in
            Section(id: "s\(i)", title: "Section \(i)", items: (0..<10).map { .string("item \(i).\($0)") })
        })
        let names = (0..<sections).map { "s\(($0 * 7919) % sections)" }
        var bytes = 0
        for _ in 0..<200 { board = try board.applying(.toggle(section: names.randomElement()!), limits: .defaults)!.board }
        var runs: [Double] = []
        for _ in 0..<5 {
            let n = 2_000
            let start = now()
            for i in 0..<n {
                let change = try board.applying(.toggle(section: names[i % sections]), limits: .defaults)!
                bytes &+= PatchOp.encode(change.ops).count
                board = change.board
            }
            runs.append((now() - start) / Double(n) * 1e6)
        }
        runs.sort()
        func µs(_ x: Double) -> String { String(Double((x * 100).rounded()) / 100) + " µs" }
        print("toggle on \(sections) sections x 10 items (apply + encode the patch): median \(µs(runs[2])), "
              + "min \(µs(runs[0])), max \(µs(runs[4])) per toggle (5 runs of 2,000; \(bytes) patch bytes)")
    }
}
