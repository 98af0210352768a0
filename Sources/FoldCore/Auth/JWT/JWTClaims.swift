/// What a verified JWT says (RFC 7519 §4.1) and grants: `sub` (required: the
/// actor's name), `exp` (required), `nbf`, `iat`, `iss`, `aud`, and
/// `foldsync`, an object from board glob to permissions, as static tokens
/// have them (`{"ops-*": ["read", "fold"], "*": ["read"]}`); a board gets
/// the union of what its matching globs grant. Read with the daemon's
/// strict JSON parser: a duplicate claim is refused, and so is a time that
/// is not a number.
public struct JWTClaims: Sendable, Equatable {
    public let subject: String
    /// Seconds since the epoch.
    public let expires: Double
    public let notBefore: Double?
    public let issuedAt: Double?
    public let issuer: String?
    public let audience: [String]
    /// Globs in the order the token lists them, each with what it grants.
    public let grants: [(glob: String, permissions: Permission)]

    public static func == (a: JWTClaims, b: JWTClaims) -> Bool {
        a.subject == b.subject && a.expires == b.expires && a.notBefore == b.notBefore && a.issuedAt == b.issuedAt
            && a.issuer == b.issuer && a.audience == b.audience
            && a.grants.map(\.glob) == b.grants.map(\.glob) && a.grants.map(\.permissions) == b.grants.map(\.permissions)
    }

    public init(payload: [UInt8]) throws(JWTRefusal) {
        let json: JSON
        do { json = try JSONParser.parse(payload, maxDepth: 8) } catch {
            throw JWTRefusal(.claims, "the token's claims are not JSON (\(error.message))")
        }
        guard let o = json.objectValue else { throw JWTRefusal(.claims, "the token's claims are not a JSON object") }
        func time(_ name: String) throws(JWTRefusal) -> Double? {
            guard let v = o[name] else { return nil }
            guard case .number(let text) = v, let t = Double(text), t.isFinite else {
                throw JWTRefusal(.claims, "the claim '\(name)' must be a number (seconds since the epoch)")
            }
            return t
        }
        guard let sub = o["sub"]?.stringValue, Names.isValid(sub) else {
            throw JWTRefusal(.claims, "the claim 'sub' must be a name (1-64 characters of A-Z a-z 0-9 _ . -)")
        }
        guard let exp = try time("exp") else { throw JWTRefusal(.claims, "the token has no 'exp' claim") }
        subject = sub
        expires = exp
        notBefore = try time("nbf")
        issuedAt = try time("iat")
        if let iss = o["iss"] {
            guard let s = iss.stringValue else { throw JWTRefusal(.claims, "the claim 'iss' must be a string") }
            issuer = s
        } else {
            issuer = nil
        }
        switch o["aud"] {
        case nil: audience = []
        case .string(let s)?: audience = [s]
        case .array(let list)?:
            let names = list.compactMap(\.stringValue)
            guard names.count == list.count else { throw JWTRefusal(.claims, "the claim 'aud' must be a string or a list of strings") }
            audience = names
        default: throw JWTRefusal(.claims, "the claim 'aud' must be a string or a list of strings")
        }
        var grants: [(String, Permission)] = []
        if let f = o["foldsync"] {
            guard let map = f.objectValue else { throw JWTRefusal(.claims, "the claim 'foldsync' must map board globs to permissions") }
            for (glob, value) in map {
                guard Glob.isValidPattern(glob) else { throw JWTRefusal(.claims, "the board glob '\(glob.prefix(64))' may hold name characters, * and ?") }
                guard let names = value.arrayValue else { throw JWTRefusal(.claims, "the grant of '\(glob)' must be a list of permissions") }
                var p: Permission = []
                for n in names {
                    guard let s = n.stringValue, let (_, v) = Permission.names.first(where: { $0.0 == s }) else {
                        throw JWTRefusal(.claims, "the grant of '\(glob)' may hold read, fold, edit and admin")
                    }
                    p.insert(v)
                }
                grants.append((glob, p))
            }
        }
        self.grants = grants
    }

    /// The time and the audience: valid from `nbf` (and not issued in the
    /// future) to `exp`, each with `leeway` seconds of clock skew; `iss` and
    /// `aud` must match when the daemon is configured with them.
    public func check(now: Double, leeway: Double, issuer wanted: String?, audience want: String?) throws(JWTRefusal) {
        if now >= expires + leeway { throw JWTRefusal(.expired, "the token expired") }
        if let nbf = notBefore, now + leeway < nbf { throw JWTRefusal(.notYetValid, "the token is not valid yet (nbf)") }
        if let iat = issuedAt, now + leeway < iat { throw JWTRefusal(.notYetValid, "the token was issued in the future (iat)") }
        if let wanted, issuer != wanted { throw JWTRefusal(.issuer, "the token's issuer is not the one configured") }
        if let want, !audience.contains(want) { throw JWTRefusal(.audience, "the token is not meant for this audience") }
    }

}
