/// The daemon's commit-time histogram from `/metrics`, read before and after
/// a phase, so a run reports how many of its commits were slow. Every change
/// waits for its commit before anyone sees it, so a run whose p99 is one
/// stalled disk flush says so here; a peer that keeps nothing has no such line.
struct CommitTimes {
    /// Cumulative counts by upper bound in seconds, `+Inf` last.
    var buckets: [Bucket] = []
    var count = 0
    var sum = 0.0

    struct Bucket {
        var le: Double
        var count: Int
    }

    /// `GET /metrics`; nil when it is not a foldsyncd that answers (a peer, a token required).
    static func read(host: String, port: Int) -> CommitTimes? {
        let head = "GET /metrics HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n"
        guard let r = BoardSetup.exchange(Array(head.utf8), host: host, port: port, timeoutSeconds: 10),
              String(decoding: r.prefix(12), as: UTF8.self) == "HTTP/1.1 200" else { return nil }
        let parsed = parse(String(decoding: r, as: UTF8.self))
        return parsed.buckets.isEmpty ? nil : parsed
    }

    static func parse(_ text: String) -> CommitTimes {
        var t = CommitTimes()
        let prefix = "foldsync_commit_seconds_bucket{le=\""
        for line in text.split(separator: "\n") {
            if line.hasPrefix(prefix) {
                let rest = line.dropFirst(prefix.count)
                guard let q = rest.firstIndex(of: "\""), let space = rest.lastIndex(of: " "),
                      let n = Int(rest[rest.index(after: space)...]) else { continue }
                let bound = rest[..<q] == "+Inf" ? Double.infinity : Double(rest[..<q])
                if let bound { t.buckets.append(Bucket(le: bound, count: n)) }
            } else if line.hasPrefix("foldsync_commit_seconds_count ") {
                t.count = Int(line.dropFirst("foldsync_commit_seconds_count ".count)) ?? 0
            } else if line.hasPrefix("foldsync_commit_seconds_sum ") {
                t.sum = Double(line.dropFirst("foldsync_commit_seconds_sum ".count)) ?? 0
            }
        }
        return t
    }

    /// What happened between `earlier` and this reading. A count over a
    /// bound the daemon's histogram does not have is nil, not every commit.
    func since(_ earlier: CommitTimes) -> Phase {
        func cumulative(_ t: CommitTimes, _ le: Double) -> Int? { t.buckets.first { $0.le == le }?.count }
        func over(_ le: Double) -> Int? {
            guard let now = cumulative(self, le), let then = cumulative(earlier, le) else { return nil }
            return (count - earlier.count) - (now - then)
        }
        var p = Phase(commits: count - earlier.count, seconds: sum - earlier.sum)
        p.over10ms = over(0.01)
        p.over50ms = over(0.05)
        // The first bound whose bucket holds every commit of the phase.
        if p.commits > 0 {
            p.slowestAtMostMs = buckets.first { $0.count - (cumulative(earlier, $0.le) ?? 0) >= p.commits }.map { $0.le * 1000 }
        }
        return p
    }

    struct Phase {
        var commits: Int
        var seconds: Double
        var over10ms: Int?
        var over50ms: Int?
        /// The slowest commit took at most this (a histogram bound; infinity past the last); nil without commits.
        var slowestAtMostMs: Double?

        var meanMs: Double { commits > 0 ? seconds * 1000 / Double(commits) : 0 }
    }
}
