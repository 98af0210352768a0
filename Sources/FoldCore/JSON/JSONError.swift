/// Why a text is not acceptable JSON, and the byte offset where that was found.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Human-readable, e.g. "invalid escape at byte 12".
    public var message: String
    public var offset: Int

    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }
}
