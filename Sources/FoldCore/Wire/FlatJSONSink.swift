/// Where `ActionKey.writeFlat` writes: JSON text as bytes, or its hash.
protocol FlatJSONSink {
    mutating func raw(_ text: StaticString)
    /// `s` quoted and escaped as `JSONWriter.appendString` writes it.
    mutating func string(_ s: String)
    mutating func int(_ n: Int)
}

/// The bytes themselves.
struct ByteSink: FlatJSONSink {
    var out: [UInt8]
    mutating func raw(_ text: StaticString) { JSONWriter.appendRaw(text, to: &out) }
    mutating func string(_ s: String) { JSONWriter.appendString(s, to: &out) }
    mutating func int(_ n: Int) { JSONWriter.appendInt(n, to: &out) }
}
