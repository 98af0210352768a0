/// Cheap scanning of the daemon's compact JSON: find a key, read an integer.
/// No full parse: the benchmark must cost far less per message than the daemon.
enum Scan {
    /// Index of the first occurrence of `needle` in `p[from..<n]`, or -1.
    @inline(__always)
    static func find(_ needle: StaticString, in p: UnsafePointer<UInt8>, from: Int, to n: Int) -> Int {
        let k = needle.utf8CodeUnitCount
        let s = needle.utf8Start
        let first = s[0]
        var i = from
        let last = n - k
        while i <= last {
            if p[i] == first {
                var j = 1
                while j < k && p[i + j] == s[j] { j += 1 }
                if j == k { return i }
            }
            i += 1
        }
        return -1
    }

    /// The unsigned decimal at `p[i...]`, and the index after it; (-1, i) when there is none.
    @inline(__always)
    static func integer(_ p: UnsafePointer<UInt8>, at start: Int, to n: Int) -> (Int, Int) {
        var i = start
        var v = 0
        while i < n, p[i] &- 48 < 10 {
            v = v &* 10 &+ Int(p[i] &- 48)
            i += 1
        }
        return i == start ? (-1, i) : (v, i)
    }

    /// Whether `p[at...]` starts with `prefix`.
    @inline(__always)
    static func hasPrefix(_ prefix: StaticString, _ p: UnsafePointer<UInt8>, at: Int, to n: Int) -> Bool {
        let k = prefix.utf8CodeUnitCount
        guard at + k <= n else { return false }
        let s = prefix.utf8Start
        for j in 0..<k where p[at + j] != s[j] { return false }
        return true
    }
}
