@testable import FoldCore
import Testing

/// One permission check for static tokens and JWTs: the union of the
/// matching globs, alternatives, and what any proven identity may see.
@Suite struct IdentityTests {
    static let jwt = Identity(name: "alice", grants: [
        .init(glob: "ops-*", permissions: [.read, .fold]),
        .init(glob: "ops-db", permissions: [.edit]),
        .init(glob: "*", permissions: [.read]),
    ], source: .jwt, expires: 2_000_000_000)

    @Test func aBoardGetsTheUnionOfItsMatchingGlobs() {
        #expect(Self.jwt.permissions(on: "ops-db") == [.read, .fold, .edit])
        #expect(Self.jwt.permissions(on: "ops-web") == [.read, .fold])
        #expect(Self.jwt.permissions(on: "team") == [.read])
        #expect(Self.jwt.permissions(on: nil) == [.read, .fold, .edit])
        #expect(Self.jwt.allows(.edit, board: "ops-db") && !Self.jwt.allows(.edit, board: "ops-web"))
        #expect(Self.jwt.allows([.fold, .admin], board: "ops-web") && !Self.jwt.allows(.admin, board: "ops-db"))
    }

    @Test func noGrantsMeansNoBoardButStillSignedIn() {
        let bare = Identity(name: "bob", grants: [], source: .jwt, expires: 1)
        #expect(bare.allows([], board: nil))
        #expect(!bare.allows([], board: "default") && !bare.allows(.read, board: "default"))
        #expect(bare.boardsSummary == "*" && bare.describedAsActor == "subject 'bob'")
    }

    @Test func aStaticTokenIsOneGlob() throws {
        let t = try AccessToken.parse("ci read,fold \(String(repeating: "ab", count: 32)) team-*").get()
        let who = Identity(token: t)
        #expect(who.name == "ci" && who.source == .token && who.expires == nil && who.boardsSummary == "team-*")
        #expect(who.allows(.fold, board: "team-a") && !who.allows(.fold, board: "ops") && !who.allows(.edit, board: "team-a"))
        #expect(who.allows([], board: "team-b") && !who.allows([], board: "ops"))
        #expect(t.allows(.fold, board: "team-a") == who.allows(.fold, board: "team-a"))
    }

    @Test func authenticatedListsGrantsAndExpiryForAJWT() throws {
        let json = try JSONParser.parse(ServerMessage.authenticated(Self.jwt), maxDepth: 8)
        #expect(json["name"]?.stringValue == "alice" && json["boards"]?.stringValue == "*")
        #expect(json["permissions"]?.arrayValue?.compactMap(\.stringValue) == ["read", "fold", "edit"])
        #expect(json["grants"]?["ops-db"]?.arrayValue?.compactMap(\.stringValue) == ["edit"])
        #expect(json["expires"]?.intValue == 2_000_000_000)
        let t = try JSONParser.parse(ServerMessage.authenticated(Identity(token: try AccessToken.parse("ci read \(String(repeating: "00", count: 32))").get())), maxDepth: 8)
        #expect(t["grants"] == nil && t["expires"] == nil && t["boards"]?.stringValue == "*")
        #expect(String(decoding: ServerMessage.authExpiring(inSeconds: 42), as: UTF8.self) == #"{"type":"authExpiring","in":42}"#)
    }
}
