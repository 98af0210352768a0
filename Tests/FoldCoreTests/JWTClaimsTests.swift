@testable import FoldCore
import Testing

/// A verified token's claims: what is required, what must be a number, the
/// time window with its leeway, issuer and audience, and the grants per board.
@Suite struct JWTClaimsTests {
    static func claims(_ json: String) throws(JWTRefusal) -> JWTClaims { try JWTClaims(payload: Array(json.utf8)) }

    static func check(_ json: String) -> JWTRefusal.Check? {
        do throws(JWTRefusal) {
            _ = try claims(json)
            return nil
        } catch { return error.check }
    }

    @Test func requiredClaimsAndTheirTypes() throws {
        let c = try Self.claims(#"{"sub":"alice","exp":2000000000,"nbf":1.5,"iat":10,"iss":"idp","aud":["a","b"]}"#)
        #expect(c.subject == "alice" && c.expires == 2_000_000_000 && c.notBefore == 1.5 && c.issuedAt == 10)
        #expect(c.issuer == "idp" && c.audience == ["a", "b"])
        #expect(try Self.claims(#"{"sub":"x","exp":1,"aud":"one"}"#).audience == ["one"])
        #expect(Self.check(#"{"exp":1}"#) == .claims, "sub is required")
        #expect(Self.check(#"{"sub":"has space","exp":1}"#) == .claims, "sub is a name")
        #expect(Self.check(#"{"sub":"a"}"#) == .claims, "exp is required")
        #expect(Self.check(#"{"sub":"a","exp":"2000000000"}"#) == .claims, "exp is a number")
        #expect(Self.check(#"{"sub":"a","exp":1,"nbf":"0"}"#) == .claims)
        #expect(Self.check(#"{"sub":"a","exp":1,"iat":true}"#) == .claims)
        #expect(Self.check(#"{"sub":"a","exp":1,"aud":[1]}"#) == .claims)
        #expect(Self.check(#"{"sub":"a","exp":1,"sub":"b"}"#) == .claims, "duplicate claims are refused")
        #expect(Self.check(#"["sub"]"#) == .claims)
    }

    @Test func theWindowWithItsLeeway() throws {
        let c = try Self.claims(#"{"sub":"a","exp":1000,"nbf":900,"iat":890}"#)
        func at(_ now: Double, leeway: Double = 30) -> JWTRefusal.Check? {
            do throws(JWTRefusal) { try c.check(now: now, leeway: leeway, issuer: nil, audience: nil); return nil } catch { return error.check }
        }
        #expect(at(950) == nil)
        #expect(at(1020) == nil, "inside the leeway after exp")
        #expect(at(1030) == .expired)
        #expect(at(1000, leeway: 0) == .expired)
        #expect(at(875) == nil, "inside the leeway before nbf")
        #expect(at(860) == .notYetValid)
        let future = try Self.claims(#"{"sub":"a","exp":5000,"iat":4000}"#)
        #expect(throws: JWTRefusal.self) { try future.check(now: 3000, leeway: 30, issuer: nil, audience: nil) }
    }

    @Test func issuerAndAudienceWhenConfigured() throws {
        let c = try Self.claims(#"{"sub":"a","exp":1000,"iss":"https://idp.example","aud":["foldsync","other"]}"#)
        #expect(throws: Never.self) { try c.check(now: 0, leeway: 0, issuer: "https://idp.example", audience: "foldsync") }
        #expect(throws: JWTRefusal(.issuer, "the token's issuer is not the one configured")) {
            try c.check(now: 0, leeway: 0, issuer: "https://evil.example", audience: nil)
        }
        #expect(throws: JWTRefusal(.audience, "the token is not meant for this audience")) {
            try c.check(now: 0, leeway: 0, issuer: nil, audience: "dashboard")
        }
        let bare = try Self.claims(#"{"sub":"a","exp":1000}"#)
        #expect(throws: JWTRefusal.self) { try bare.check(now: 0, leeway: 0, issuer: "https://idp.example", audience: nil) }
    }

    @Test func grantsAreTheUnionOfMatchingGlobs() throws {
        let c = try Self.claims(#"{"sub":"a","exp":1,"foldsync":{"ops-*":["read","fold"],"team-a":["read","fold","edit"],"*":["read"]}}"#)
        #expect(Identity(claims: c).permissions(on: "ops-1") == [.read, .fold])
        #expect(Identity(claims: c).permissions(on: "team-a") == [.read, .fold, .edit])
        #expect(Identity(claims: c).permissions(on: "other") == [.read])
        #expect(Identity(claims: c).permissions(on: nil) == [.read, .fold, .edit])
        #expect(Identity(claims: try Self.claims(#"{"sub":"a","exp":1}"#)).permissions(on: "x").isEmpty, "no foldsync claim grants nothing")
        #expect(Self.check(#"{"sub":"a","exp":1,"foldsync":{"b":["write"]}}"#) == .claims)
        #expect(Self.check(#"{"sub":"a","exp":1,"foldsync":{"b c":["read"]}}"#) == .claims)
        #expect(Self.check(#"{"sub":"a","exp":1,"foldsync":["read"]}"#) == .claims)
    }
}
