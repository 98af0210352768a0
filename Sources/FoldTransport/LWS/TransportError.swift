/// Errors from bringing the transport up.
public struct TransportError: Error, CustomStringConvertible {
    public let description: String
}
