/// A bounded FIFO: appending past the capacity drops the oldest element.
struct Ring<Element> {
    private var storage: [Element] = []
    private var start = 0
    var capacity = 1_000

    var count: Int { storage.count }

    mutating func append(_ e: Element) {
        if storage.count < capacity {
            storage.append(e)
        } else {
            storage[start] = e
            start = (start + 1) % storage.count
        }
    }

    /// The last `n` elements, oldest first.
    func suffix(_ n: Int) -> [Element] {
        let n = min(n, storage.count)
        var out: [Element] = []
        out.reserveCapacity(n)
        for i in (storage.count - n)..<storage.count {
            out.append(storage[(start + i) % storage.count])
        }
        return out
    }

    mutating func removeAll() {
        storage.removeAll()
        start = 0
    }
}
