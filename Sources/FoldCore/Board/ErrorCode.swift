/// The wire's error codes (PROTOCOL.md), each with its one HTTP status.
public enum ErrorCode: String, Sendable, CaseIterable {
    case badRequest = "bad_request"
    case unknownType = "unknown_type"
    case notFound = "not_found"
    case conflict
    case invalid
    case forbidden
    case tooLarge = "too_large"
    case rateLimited = "rate_limited"
    case `internal`
    /// An action's key was settled as never applied (`settle`): it is void.
    case expired

    public var httpStatus: Int {
        switch self {
        case .badRequest, .unknownType: return 400
        case .notFound: return 404
        case .conflict: return 409
        case .invalid: return 422
        case .forbidden: return 403
        case .tooLarge: return 413
        case .rateLimited: return 429
        case .internal: return 500
        case .expired: return 410
        }
    }
}
