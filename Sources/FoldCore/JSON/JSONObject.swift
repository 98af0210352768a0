/// A JSON object: members in insertion order (the order they are encoded
/// in), looked up by key.
///
/// Small objects (the common case: a section has four members) are searched
/// linearly; past `indexThreshold` members a key index is kept so that
/// parsing and lookups stay linear overall.
public struct JSONObject: Sendable {
    private var storage: [(key: String, value: JSON)] = []
    private var index: [String: Int]? = nil
    private static let indexThreshold = 16

    public init() {}

    /// Later duplicates of a key replace the earlier value in place.
    public init(_ pairs: [(String, JSON)]) {
        storage.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    /// Room for `n` members before the storage grows.
    public mutating func reserveCapacity(_ n: Int) { storage.reserveCapacity(n) }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    public var keys: [String] { storage.map(\.key) }

    /// Position of `key` in the member order.
    func position(of key: String) -> Int? {
        if let index { return index[key] }
        return storage.firstIndex { $0.key == key }
    }

    /// Setting nil removes the member; setting an existing key keeps its place.
    public subscript(key: String) -> JSON? {
        get { position(of: key).map { storage[$0].value } }
        set {
            if let newValue {
                if let i = position(of: key) {
                    storage[i].value = newValue
                } else {
                    storage.append((key, newValue))
                    if index != nil {
                        index![key] = storage.count - 1
                    } else if storage.count > Self.indexThreshold {
                        rebuildIndex()
                    }
                }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Removes and returns the member `key`.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSON? {
        guard let i = position(of: key) else { return nil }
        let old = storage.remove(at: i).value
        if index != nil { rebuildIndex() }
        return old
    }

    private mutating func rebuildIndex() {
        guard storage.count > Self.indexThreshold else { index = nil; return }
        var map = [String: Int](minimumCapacity: storage.count)
        for (i, pair) in storage.enumerated() { map[pair.key] = i }
        index = map
    }
}

extension JSONObject: Sequence {
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> {
        storage.makeIterator()
    }

    public var underestimatedCount: Int { storage.count }
}

extension JSONObject: Equatable {
    /// Member order does not matter.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (i, pair) in lhs.storage.enumerated() {
            // Same order is the common case: check that slot before searching.
            if i < rhs.storage.count, rhs.storage[i].key == pair.key {
                if rhs.storage[i].value != pair.value { return false }
            } else if rhs[pair.key] != pair.value {
                return false
            }
        }
        return true
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements)
    }
}
