import FoldCore

/// What an HTTP request's credentials allow.
enum HTTPAccess {
    /// Who it proved to be (nil when no token is configured), and a JWT's seconds left.
    case allowed(Identity?, secondsLeft: Double?)
    case denied(HubResponse)
}

extension Hub {
    /// Who an HTTP request proved to be with `Authorization: Bearer` (nil
    /// when no token is configured), or the refusal (401 or 403).
    func httpAccess(_ r: HubRequest, _ p: Permission, board: String?) -> HTTPAccess {
        if settings.isOpen { return .allowed(nil, secondsLeft: nil) }
        guard let secret = r.headers["authorization"].flatMap(Self.bearer) else {
            metrics.authFailures += 1
            return .denied(Self.unauthorized)
        }
        let who: Identity, left: Double?
        switch prove(secret) {
        case .proved(let identity, let l): (who, left) = (identity, l)
        case .refused(let refusal): return .denied(Self.unauthorized(refusal))
        case .unknown: return .denied(Self.unauthorized)
        }
        guard who.allows(p, board: board) else {
            return .denied(.error(.forbidden, "\(who.describedAsActor) may not do that\(board.map { " on '\($0)'" } ?? "")"))
        }
        return .allowed(who, secondsLeft: left)
    }

    /// 401 for a missing or unknown token, the same for HTTP requests and
    /// WebSocket upgrades: the contract's `forbidden` body and a Bearer challenge.
    static var unauthorized: HubResponse {
        var resp = HubResponse.error(.forbidden, "a valid token is required (Authorization: Bearer ...)")
        resp.status = 401
        resp.headers.append(("www-authenticate", "Bearer"))
        return resp
    }

    /// 401 for a JWT that failed a check: RFC 6750's `invalid_token`, with
    /// the check's words (never the token).
    static func unauthorized(_ r: JWTRefusal) -> HubResponse {
        var resp = HubResponse.error(.forbidden, "token refused: \(r.message)")
        resp.status = 401
        let words = r.message.replacingQuotesAndBackslashes
        resp.headers.append(("www-authenticate", "Bearer error=\"invalid_token\", error_description=\"\(words)\""))
        return resp
    }

    /// Only the refusal, for requests that need nothing else from the token.
    func httpDenial(_ r: HubRequest, _ p: Permission, board: String?) -> HubResponse? {
        if case .denied(let denial) = httpAccess(r, p, board: board) { return denial }
        return nil
    }
}

extension String {
    /// Safe inside a quoted header parameter: printable ASCII only (a
    /// refusal may quote the token's `alg`, which the client wrote), with
    /// `"` and `\` as `'` and `/`.
    fileprivate var replacingQuotesAndBackslashes: String {
        String(decoding: utf8.compactMap { b -> UInt8? in
            switch b {
            case UInt8(ascii: "\""): UInt8(ascii: "'")
            case UInt8(ascii: "\\"): UInt8(ascii: "/")
            case 0x20...0x7e: b
            default: nil
            }
        }, as: UTF8.self)
    }
}
