import FoldCore
@testable import FoldConfig
import Testing

/// `jwt-key` values: an algorithm and a file, an optional kid, or a JWK Set.
@Suite struct JWTKeySpecTests {
    @Test func keysKidsAndSets() throws {
        let rs = try JWTKeySpec.parse("RS256:/etc/foldsync/idp.pem:kid=k1").get()
        #expect(rs.kind == .key(.RS256) && rs.path == "/etc/foldsync/idp.pem" && rs.kid == "k1")
        #expect(rs.description == "RS256:/etc/foldsync/idp.pem:kid=k1")
        let hs = try JWTKeySpec.parse("HS512:/run/secrets/a:b").get()
        #expect(hs.kind == .key(.HS512) && hs.path == "/run/secrets/a:b" && hs.kid == nil)
        let set = try JWTKeySpec.parse("jwks:/etc/foldsync/keys.json").get()
        #expect(set.kind == .jwks && set.path == "/etc/foldsync/keys.json")
    }

    @Test(arguments: [
        ("RS256", "expects ALG:PATH"),
        ("none:/k", "not an algorithm foldsync verifies"),
        ("HS256:", "expects a file"),
        ("jwks:/k.json:kid=a", "takes no kid="),
        ("ES256:/k:kid=", "kid= expects"),
    ])
    func mistakesSayWhat(value: String, words: String) {
        guard case .failure(let e) = JWTKeySpec.parse(value) else {
            Issue.record("\(value) was accepted")
            return
        }
        #expect(e.description.contains(words), "\(e.description)")
    }

    @Test func theOptionsAreRepeatableLiveAndShownInHelp() throws {
        var sources = ConfigSources()
        sources.flags = [("jwt-key", "HS256:/a"), ("jwt-key", "EdDSA:/b:kid=e"), ("jwt-issuer", "https://idp"), ("jwt-leeway", "5")]
            .map { (key: $0.0, value: $0.1) }
        let (c, problems) = sources.resolve(.text(""))
        #expect(problems.isEmpty, "\(problems)")
        #expect(c.jwtKeys.map(\.description) == ["HS256:/a", "EdDSA:/b:kid=e"])
        #expect(c.jwtIssuer == "https://idp" && c.jwtLeeway == 5 && c.jwtRefreshBefore == 60 && c.jwtAudience == "")
        for key in ["jwt-key", "jwt-issuer", "jwt-audience", "jwt-leeway", "jwt-refresh-before"] {
            #expect(OptionTable.find(key)?.live == true, "\(key)")
        }
        // Keys alone are enough to listen beyond loopback: nobody gets in without a token.
        sources.flags.append((key: "listen", value: "0.0.0.0:7681"))
        #expect(sources.resolve(.text("")).1.isEmpty)
    }
}
