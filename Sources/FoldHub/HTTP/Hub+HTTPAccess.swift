import FoldCore

/// What an HTTP request's credentials allow.
enum HTTPAccess {
    /// The token it proved; nil when no token is configured.
    case allowed(AccessToken?)
    case denied(HubResponse)
}

extension Hub {
    /// The token an HTTP request proved with `Authorization: Bearer` (nil
    /// when no token is configured), or the refusal (401 or 403).
    func httpAccess(_ r: HubRequest, _ p: Permission, board: String?) -> HTTPAccess {
        if settings.access.isAnonymous { return .allowed(nil) }
        guard let secret = r.headers["authorization"].flatMap(Self.bearer), let token = settings.access.authenticate(secret, digest: digest) else {
            metrics.authFailures += 1
            return .denied(Self.unauthorized)
        }
        guard token.allows(p, board: board) else {
            return .denied(.error(.forbidden, "token '\(token.name)' may not do that\(board.map { " on '\($0)'" } ?? "")"))
        }
        return .allowed(token)
    }

    /// 401 for a missing or unknown token, the same for HTTP requests and
    /// WebSocket upgrades: the contract's `forbidden` body and a Bearer challenge.
    static var unauthorized: HubResponse {
        var resp = HubResponse.error(.forbidden, "a valid token is required (Authorization: Bearer ...)")
        resp.status = 401
        resp.headers.append(("www-authenticate", "Bearer"))
        return resp
    }

    /// Only the refusal, for requests that need nothing else from the token.
    func httpDenial(_ r: HubRequest, _ p: Permission, board: String?) -> HubResponse? {
        if case .denied(let denial) = httpAccess(r, p, board: board) { return denial }
        return nil
    }
}
