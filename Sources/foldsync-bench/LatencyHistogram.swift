/// Latencies in fixed buckets: 10 µs wide up to 100 ms, 1 ms wide up to
/// 60 s, then one overflow bucket. Recording is one increment; no samples
/// are kept, so a million deliveries a second cost no memory.
final class LatencyHistogram {
    private static let fineBuckets = 10_000        // 0..<100 ms, 10 µs each
    private static let coarseBuckets = 59_900      // 100 ms..<60 s, 1 ms each
    private static let total = fineBuckets + coarseBuckets + 1

    private let buckets: UnsafeMutablePointer<UInt64>
    private(set) var count: UInt64 = 0
    private(set) var maxNs: UInt64 = 0
    private(set) var sumNs: UInt64 = 0

    init() {
        buckets = .allocate(capacity: Self.total)
        buckets.initialize(repeating: 0, count: Self.total)
    }

    deinit { buckets.deallocate() }

    func reset() {
        buckets.update(repeating: 0, count: Self.total)
        count = 0
        maxNs = 0
        sumNs = 0
    }

    @inline(__always)
    func record(_ ns: UInt64) {
        let us = ns / 1000
        let i: Int
        if us < 100_000 {
            i = Int(us / 10)
        } else if us < 60_000_000 {
            i = Self.fineBuckets + Int(us / 1000) - 100
        } else {
            i = Self.total - 1
        }
        buckets[i] += 1
        count += 1
        sumNs &+= ns
        if ns > maxNs { maxNs = ns }
    }

    /// The upper edge of the bucket holding quantile `q` (0...1), in ms.
    func percentileMs(_ q: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = UInt64((Double(count) * q).rounded(.up))
        var seen: UInt64 = 0
        for i in 0..<Self.total {
            seen += buckets[i]
            if seen >= max(rank, 1) { return min(Self.upperEdgeMs(i), maxMs) }
        }
        return maxMs
    }

    var maxMs: Double { Double(maxNs) / 1e6 }
    var meanMs: Double { count == 0 ? 0 : Double(sumNs) / Double(count) / 1e6 }

    private static func upperEdgeMs(_ i: Int) -> Double {
        if i < fineBuckets { return Double(i + 1) * 0.01 }
        if i < fineBuckets + coarseBuckets { return Double(i - fineBuckets + 101) }
        return 60_000
    }
}
