/// Strict RFC 8259 parser working on bytes.
///
/// Refuses everything the RFC does not allow (comments, trailing commas,
/// leading zeros, NaN, raw control characters, invalid UTF-8, lone
/// surrogates, trailing garbage) and, beyond the RFC, duplicate object keys
/// and nesting deeper than `maxDepth`: both make a document mean different
/// things to different readers, or cost unbounded stack.
public struct JSONParser {
    /// Parses one JSON text. `allowDuplicateKeys` (last one wins) exists for
    /// reading third-party fixtures; messages from clients never use it.
    public static func parse(
        _ bytes: some Collection<UInt8>, maxDepth: Int = 64, allowDuplicateKeys: Bool = false
    ) throws(JSONError) -> JSON {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            parseResult(buffer, maxDepth: maxDepth, allowDuplicateKeys: allowDuplicateKeys)
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            parseResult(buffer, maxDepth: maxDepth, allowDuplicateKeys: allowDuplicateKeys)
        }.get()
    }

    public static func parse(
        _ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64, allowDuplicateKeys: Bool = false
    ) throws(JSONError) -> JSON {
        try parseResult(
            UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count),
            maxDepth: maxDepth, allowDuplicateKeys: allowDuplicateKeys
        ).get()
    }

    /// Parses UTF-8 text held in a String.
    public static func parse(_ text: String, maxDepth: Int = 64) throws(JSONError) -> JSON {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    /// A `Result`, because `withContiguousStorageIfAvailable` only rethrows untyped errors.
    private static func parseResult(
        _ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowDuplicateKeys: Bool
    ) -> Result<JSON, JSONError> {
        var reader = JSONReader(bytes: buffer, maxDepth: maxDepth, allowDuplicateKeys: allowDuplicateKeys)
        do throws(JSONError) {
            reader.skipWhitespace()
            let value = try reader.readValue(depth: 0)
            reader.skipWhitespace()
            if reader.position != buffer.count {
                throw reader.error("unexpected data after the value")
            }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }
}
