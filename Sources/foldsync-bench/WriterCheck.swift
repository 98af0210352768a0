import FoldCore
import Glibc

/// After writer mode: what the daemons hold, against what was acknowledged.
/// Nothing acknowledged is lost when every writer's section ends with the
/// title it was acknowledged last (at the highest rev), every rev of each
/// board was acknowledged to someone (no change nobody asked for, none
/// twice), and, on the shared single-mode board, at most one section is open.
struct WriterCheck {
    var boards = 0
    var finalRevs = 0
    /// Writers whose section does not hold their last acknowledged title.
    var lostTitles = 0
    /// Boards whose revs are not exactly the acknowledged ones.
    var revMismatches = 0
    var accordionHolds = true
    /// Boards whose GET disagreed between daemons after 30 s.
    var diverged = 0

    var ok: Bool { lostTitles == 0 && revMismatches == 0 && accordionHolds && diverged == 0 }

    static func run(_ bench: Bench) -> WriterCheck {
        let config = bench.config
        var c = WriterCheck()
        let writers = bench.peers.filter { $0.role == .writer }
        let byBoard = Dictionary(grouping: writers, by: \.writeBoard)
        for (name, group) in byBoard.sorted(by: { $0.key < $1.key }) {
            c.boards += 1
            guard let board = converged(name, nodes: config.allNodes) else {
                c.diverged += 1
                continue
            }
            let head = board["rev"]?.intValue ?? -1
            c.finalRevs += max(0, head)
            let acked = Set(group.flatMap(\.ackedRevs))
            // Every rev from 1 to the head was some action's answer, and no answer is past the head.
            if acked.union([0]) != Set(0...max(0, head)) { c.revMismatches += 1 }
            let sections = board["state"]?["sections"]?.arrayValue ?? []
            for w in group where w.titleAt.seq >= 0 {
                let id = "s\(w.slot % bench.writerSections)"
                let title = sections.first { $0["id"]?.stringValue == id }?["title"]?.stringValue
                if title != "w\(w.slot):\(w.titleAt.seq)" { c.lostTitles += 1 }
            }
            if config.sharedBoard && sections.filter({ $0["expanded"]?.boolValue == true }).count > 1 { c.accordionHolds = false }
        }
        return c
    }

    /// The board once every daemon shows the same rev (at most 30 s).
    static func converged(_ name: String, nodes: [BenchConfig.Node]) -> JSON? {
        let deadline = System.nowNs() + 30_000_000_000
        while System.nowNs() < deadline {
            let seen = nodes.map { BoardSetup.get(board: name, host: $0.host, port: $0.port) }
            if let first = seen[0], seen.allSatisfy({ $0?["rev"]?.intValue == first["rev"]?.intValue && $0?["epoch"]?.stringValue == first["epoch"]?.stringValue }) {
                return first
            }
            usleep(50_000)
        }
        return nil
    }
}
