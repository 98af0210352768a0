/// A failure in the test harness itself (the daemon did not start, a socket
/// broke), thrown so the test stops with a readable reason.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
