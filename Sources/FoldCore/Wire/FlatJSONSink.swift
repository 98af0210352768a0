/// Where `ActionKey.writeFlat` writes: its hash (`FNV1a`), or, in the
/// tests, the JSON text itself.
protocol FlatJSONSink {
    mutating func raw(_ text: StaticString)
    /// `s` quoted and escaped as `JSONWriter.appendString` writes it.
    mutating func string(_ s: String)
    mutating func int(_ n: Int)
}
