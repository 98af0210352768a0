import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// JWT sign-in through the real daemon, with tokens from PyJWT
/// (`JWTMint`): every algorithm, every refusal with its metric, HTTP,
/// in-band refresh, expiry, key rotation by SIGHUP, and key files that are
/// refused. Static tokens work beside JWTs throughout.
@Suite struct JWTTests {
    static let everyGrant = #"{"*":["read","fold","edit","admin"]}"#

    /// The refusal counter for one check, from `/metrics`.
    static func refusals(_ check: String, _ d: DaemonProcess) throws -> Double {
        let text = try d.http("GET", "/metrics", headers: Tokens.bearer(Tokens.admin)).text
        return metric("foldsync_jwt_refusals_total{check=\"\(check)\"}", in: text) ?? -1
    }

    @Test func everyAlgorithmSignsInWithExactlyItsClaimsRights() throws {
        let k = try JWTMint.key
        let keys: [(alg: String, flag: String, signer: String, kid: String?)] = [
            ("HS256", "HS256:\(try k("hs256.secret"))", try k("hs256.secret"), nil),
            ("HS384", "HS384:\(try k("hs384.secret")):kid=h384", try k("hs384.secret"), "h384"),
            ("HS512", "HS512:\(try k("hs512.secret")):kid=h512", try k("hs512.secret"), "h512"),
            ("RS256", "RS256:\(try k("rsa.pub")):kid=r256", try k("rsa.key"), "r256"),
            ("RS384", "RS384:\(try k("rsa.pub")):kid=r384", try k("rsa.key"), "r384"),
            ("RS512", "RS512:\(try k("rsa.pub")):kid=r512", try k("rsa.key"), "r512"),
            ("PS256", "PS256:\(try k("rsa.pub")):kid=p256", try k("rsa.key"), "p256"),
            ("ES256", "ES256:\(try k("ec256.pub")):kid=e256", try k("ec256.key"), "e256"),
            ("ES384", "ES384:\(try k("ec384.pub")):kid=e384", try k("ec384.key"), "e384"),
            ("EdDSA", "EdDSA:\(try k("ed25519.pub")):kid=ed", try k("ed25519.key"), "ed"),
        ]
        let d = try DaemonProcess(Tokens.flags + keys.flatMap { ["--jwt-key", $0.flag] })
        defer { d.shutdown() }
        #expect(try d.http("PUT", "/api/boards/team-a", body: #"{"mode":"multi","sections":[{"id":"a","title":"A","items":[],"expanded":false}]}"#,
                           headers: Tokens.bearer(Tokens.admin)).status == 200)
        let grants = #"{"team-*":["read","fold"],"default":["read"]}"#
        let tokens = try JWTMint.sign(keys.map { key in
            JWTMint.Spec(alg: key.alg, key: key.signer, claims: JWTMint.claims("u-\(key.alg)", grants: grants),
                         headers: key.kid.map { "{\"kid\":\(Wire.q($0))}" } ?? "{}")
        })
        for (key, token) in zip(keys, tokens) {
            let c = try d.connect(headers: [("Authorization", "Bearer \(token)")])
            let a = try c.recvJSON()
            #expect(a.type == "authenticated" && a["name"]?.stringValue == "u-\(key.alg)", "\(key.alg): \(a)")
            #expect(a["permissions"]?.arrayValue?.compactMap(\.stringValue) == ["read", "fold"], "\(a)")
            #expect(a["boards"]?.stringValue == "*")
            #expect(a["grants"]?["team-*"]?.arrayValue?.compactMap(\.stringValue) == ["read", "fold"], "\(a)")
            #expect(a["grants"]?["default"]?.arrayValue?.compactMap(\.stringValue) == ["read"], "\(a)")
            let exp = a["expires"]?.intValue ?? 0
            #expect(abs(exp - Int(Date().timeIntervalSince1970 + 300)) < 30, "\(a)")
            // Exactly its claims' rights: fold on team-*, only read on default, nothing elsewhere.
            try c.subscribe("default")
            #expect(try c.answer(Wire.action(.toggle, board: "default", id: "d", #""section":"s0""#), id: "d").code == "forbidden")
            #expect(try c.answer(Wire.action(.toggle, board: "team-a", id: "t", #""section":"a""#), id: "t").type == "ack", "\(key.alg)")
            #expect(try c.answer(Wire.action(.setTitle, board: "team-a", id: "e", #""section":"a","title":"x""#), id: "e").code == "forbidden")
        }
        // The history names each JWT's subject.
        let history = try d.http("GET", "/api/boards/team-a/history?limit=20", headers: Tokens.bearer(Tokens.admin)).json()
        let actors = Set(history["entries"]?.arrayValue?.compactMap { $0["actor"]?.stringValue } ?? [])
        #expect(actors == Set(keys.map { "u-\($0.alg)" }), "\(actors)")
        // A static token still signs in beside the keys.
        let s = try d.connect(headers: Tokens.bearer(Tokens.folder))
        #expect(try s.recvJSON()["name"]?.stringValue == "folder")
    }

    @Test func everyRefusalSaysItsCheckAndIsCounted() throws {
        let k = try JWTMint.key
        let d = try DaemonProcess(Tokens.flags + [
            "--jwt-key", "RS256:\(try k("rsa.pub")):kid=r", "--jwt-key", "ES256:\(try k("ec256.pub")):kid=e",
            "--jwt-key", "HS256:\(try k("hs256.secret")):kid=h",
            "--jwt-issuer", "https://idp.example", "--jwt-audience", "foldsync", "--jwt-leeway", "30", "--auth-timeout", "120",
        ])
        defer { d.shutdown() }
        let now = Int(Date().timeIntervalSince1970)
        let good = #""iss":"https://idp.example","aud":["other","foldsync"]"#
        func claims(_ extra: String = good, life: Double = 300) -> String { JWTMint.claims("eve", life: life, grants: Self.everyGrant, extra: extra) }
        let rs = (alg: "RS256", key: try k("rsa.key"), kid: #"{"kid":"r"}"#)
        let specs: [(name: String, spec: JWTMint.Spec)] = [
            ("good", .init(alg: rs.alg, key: rs.key, claims: claims(), headers: rs.kid)),
            ("confusion", .init(alg: "HS256", key: try k("rsa.pub"), claims: claims(), headers: rs.kid, anyKey: true)),
            ("unknownKid", .init(alg: rs.alg, key: rs.key, claims: claims(), headers: #"{"kid":"zz"}"#)),
            ("der", .init(alg: "ES256", key: try k("ec256.key"), claims: claims(), headers: #"{"kid":"e"}"#, derSignature: true)),
            ("expired", .init(alg: rs.alg, key: rs.key, claims: claims(life: -100), headers: rs.kid)),
            ("expiredInLeeway", .init(alg: rs.alg, key: rs.key, claims: claims(life: -10), headers: rs.kid)),
            ("early", .init(alg: rs.alg, key: rs.key, claims: claims(good + ",\"nbf\":\(now + 100)"), headers: rs.kid)),
            ("earlyInLeeway", .init(alg: rs.alg, key: rs.key, claims: claims(good + ",\"nbf\":\(now + 10)"), headers: rs.kid)),
            ("issuer", .init(alg: rs.alg, key: rs.key, claims: claims(#""iss":"https://evil.example","aud":"foldsync""#), headers: rs.kid)),
            ("audience", .init(alg: rs.alg, key: rs.key, claims: claims(#""iss":"https://idp.example","aud":"someone-else""#), headers: rs.kid)),
            ("expString", .init(alg: rs.alg, key: rs.key, claims: #"{"sub":"eve","exp":"\#(now + 300)","iss":"https://idp.example","aud":"foldsync"}"#,
                                headers: rs.kid, raw: true)),
            ("duplicate", .init(alg: rs.alg, key: rs.key, claims: #"{"sub":"eve","sub":"admin","exp":\#(now + 300),"iss":"https://idp.example","aud":"foldsync"}"#,
                                headers: rs.kid, raw: true)),
            ("large", .init(alg: rs.alg, key: rs.key, claims: claims(good + ",\"pad\":\"" + String(repeating: "x", count: 9 * 1024) + "\""), headers: rs.kid)),
        ]
        let signed = Dictionary(uniqueKeysWithValues: zip(specs.map(\.name), try JWTMint.sign(specs.map(\.spec))))
        let goodToken = signed["good"]!
        let parts = goodToken.split(separator: ".").map(String.init)
        func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }
        let payload = String(decoding: Base64URL.decode(parts[1]) ?? [], as: UTF8.self)
        #expect(payload.contains(#""sub":"eve""#), "\(payload)")
        let tampered = b64(payload.replacingOccurrences(of: #""sub":"eve""#, with: #""sub":"admin""#))
        let cases: [(name: String, token: String, check: String, words: String)] = [
            ("alg none", b64(#"{"alg":"none","kid":"r"}"#) + "." + parts[1] + ".", "alg_none", "alg 'none'"),
            ("HS256 signed with the RSA public key", signed["confusion"]!, "alg_mismatch", "not its key's"),
            ("the header's alg swapped", b64(#"{"alg":"RS384","kid":"r"}"#) + "." + parts[1] + "." + parts[2], "alg_mismatch", "not its key's"),
            ("an unknown kid", signed["unknownKid"]!, "unknown_key", "no key"),
            ("a tampered claim", parts[0] + "." + tampered + "." + parts[2], "signature", "signature"),
            ("a truncated signature", parts[0] + "." + parts[1] + "." + String(parts[2].dropLast(2)), "signature", "signature"),
            ("a padded signature", goodToken + "==", "base64", "base64url"),
            ("a DER ECDSA signature", signed["der"]!, "signature", "signature"),
            ("expired beyond the leeway", signed["expired"]!, "expired", "expired"),
            ("not valid yet beyond the leeway", signed["early"]!, "not_yet_valid", "not valid yet"),
            ("a wrong iss", signed["issuer"]!, "issuer", "issuer"),
            ("a wrong aud", signed["audience"]!, "audience", "audience"),
            ("exp as a string", signed["expString"]!, "claims", "'exp' must be a number"),
            ("duplicate claims", signed["duplicate"]!, "claims", "duplicate"),
            ("a 9 KiB token", signed["large"]!, "too_large", "larger than"),
        ]
        let c = try d.connect()
        for t in cases {
            let before = try Self.refusals(t.check, d)
            try c.send(#"{"type":"auth","token":\#(Wire.q(t.token))}"#)
            let e = try c.recvJSON()
            let message = e["message"]?.stringValue ?? ""
            #expect(e.type == "error" && e.code == "forbidden", "\(t.name): \(e)")
            #expect(message.contains(t.words), "\(t.name): \(message)")
            #expect(!message.contains(String(t.token.suffix(20))), "\(t.name): the message quotes the token")
            #expect(try Self.refusals(t.check, d) == before + 1, "\(t.name): \(t.check) not counted")
        }
        // Nothing was granted by any of them.
        try c.send(Wire.subscribe())
        #expect(try c.recvSkippingPresence().code == "forbidden")
        // Inside the leeway, on both sides, a token is good; so is the right one.
        for name in ["good", "expiredInLeeway", "earlyInLeeway"] {
            let ok = try d.connect()
            try ok.send(#"{"type":"auth","token":\#(Wire.q(signed[name]!))}"#)
            #expect(try ok.recvJSON().type == "authenticated", "\(name)")
        }
        // Over HTTP: served with a good JWT; an expired one is RFC 6750's invalid_token.
        #expect(try d.http("GET", "/api/boards/default", headers: [("Authorization", "Bearer \(goodToken)")]).status == 200)
        let expired = try d.http("GET", "/api/boards/default", headers: [("Authorization", "Bearer \(signed["expired"]!)")])
        #expect(expired.status == 401, "\(expired.status)")
        #expect(expired.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true, "\(expired.headers)")
        #expect(try expired.json()["code"]?.stringValue == "forbidden")
        // On the upgrade too: a refused JWT in the header gets 401.
        #expect(try TestSocket.refusal(port: d.port, headers: [("Authorization", "Bearer \(signed["expired"]!)")]) == 401)
        #expect(!d.stderr.contains(parts[2]), "a token was logged")
    }

    @Test func aTokenIsRefreshedInBandAndARefreshReplacesTheRights() throws {
        let secret = try JWTMint.key("hs256.secret")
        let d = try DaemonProcess(Tokens.flags + ["--jwt-key", "HS256:\(secret)", "--jwt-refresh-before", "2", "--jwt-leeway", "0"])
        defer { d.shutdown() }
        #expect(try d.http("PUT", "/api/boards/ops-1", body: #"{"mode":"multi","sections":[]}"#, headers: Tokens.bearer(Tokens.admin)).status == 200)
        let hs = { (claims: String) in JWTMint.Spec(alg: "HS256", key: secret, claims: claims) }
        // Long enough that minting three tokens (a Python process) and connecting
        // on a loaded machine leave more than the 2 s refresh window: the
        // subscribes below must be answered before `authExpiring` comes.
        let firstLife = 6.0
        // Before minting: `exp` is whole seconds, at least `firstLife - 1` after this.
        let started = Date()
        let tokens = try JWTMint.sign([
            hs(JWTMint.claims("alice", life: firstLife, grants: #"{"*":["read","fold"]}"#)),
            hs(JWTMint.claims("alice", life: 120, grants: #"{"default":["read","fold"]}"#)),
            hs(JWTMint.claims("mallory", life: 120)),
        ])
        // lws reads at most 126 bytes of subprotocols: a JWT offered
        // there gets a 400 that says where to put it instead.
        #expect(try TestSocket.refusal(port: d.port, protocols: ["foldsync.v1", "token.\(tokens[0])"]) == 400)
        let c = try d.connect(headers: [("Authorization", "Bearer \(tokens[0])")])
        let first = try c.recvJSON()
        #expect(first.type == "authenticated" && first["name"]?.stringValue == "alice", "\(first)")
        try c.subscribe("default")
        try c.subscribe("ops-1")
        let expiring = try c.waitFor(type: "authExpiring", timeout: firstLife + 2)
        let left = expiring["in"]?.intValue ?? -1
        #expect((0...3).contains(left), "\(expiring)")
        #expect(Date().timeIntervalSince(started) >= 0.9, "authExpiring came at once")

        // The fresh token: same subject, narrower rights; ops-1 ends with forbidden.
        try c.send(#"{"type":"auth","token":\#(Wire.q(tokens[1]))}"#)
        var answers: [JSON] = []
        #expect(try eventually(timeout: 5) {
            answers += try c.drain(quiet: 0.2)
            return answers.contains { $0.type == "authenticated" } && answers.contains { $0.type == "error" }
        }, "\(answers)")
        let again = answers.first { $0.type == "authenticated" }
        #expect((again?["expires"]?.intValue ?? 0) > (first["expires"]?.intValue ?? 0), "\(answers)")
        let ended = answers.first { $0.type == "error" }
        #expect(ended?.code == "forbidden" && ended?["board"]?.stringValue == "ops-1", "\(answers)")

        // Past the first token's exp, the connection lives on the second.
        usleep(UInt32(max(0, firstLife + 1 - Date().timeIntervalSince(started)) * 1e6))
        #expect(try c.answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").type == "ack")
        #expect(try c.answer(Wire.action(.toggle, board: "ops-1", id: "o", #""section":"x""#), id: "o").code == "forbidden")
        #expect(c.closeCode == nil && !c.eof)

        // Another subject is refused, and the connection closes (1008).
        try c.send(#"{"type":"auth","token":\#(Wire.q(tokens[2]))}"#)
        let refused = try c.recvSkippingPresence()
        #expect(refused.code == "forbidden" && (refused["message"]?.stringValue ?? "").contains("same subject"), "\(refused)")
        #expect(try c.waitForClose() == 1008)
        #expect(c.closeReason == "token subject changed", "\(c.closeReason)")
    }

    @Test func aTokenNotRefreshedClosesTheConnectionAtExpiry() throws {
        let secret = try JWTMint.key("hs256.secret")
        let d = try DaemonProcess(Tokens.flags + ["--jwt-key", "HS256:\(secret)", "--jwt-refresh-before", "1", "--jwt-leeway", "0"])
        defer { d.shutdown() }
        let token = try JWTMint.sign(.init(alg: "HS256", key: secret, claims: JWTMint.claims("bob", life: 2.5)))
        let c = try d.connect()
        try c.send(#"{"type":"auth","token":\#(Wire.q(token))}"#)
        #expect(try c.recvJSON().type == "authenticated")
        try c.subscribe()
        #expect(try c.waitFor(type: "authExpiring", timeout: 4).type == "authExpiring")
        #expect(try c.waitForClose(timeout: 5) == 1008)
        #expect(c.closeReason == "token expired", "\(c.closeReason)")
        let metrics = try d.http("GET", "/metrics", headers: Tokens.bearer(Tokens.admin)).text
        #expect(metric("foldsync_token_expiries_total", in: metrics) == 1, "\(metrics)")
        #expect(metric("foldsync_connections_closed_total{reason=\"token-expired\"}", in: metrics) == 1, "\(metrics)")
    }

    @Test func keysRotateWithSIGHUPAndLiveConnectionsKeepTheirRights() throws {
        let old = try JWTMint.key("hs256.secret"), new = try JWTMint.key("hs-other.secret")
        let d = try DaemonProcess(Tokens.flags, config: "")
        defer { d.shutdown() }
        let keyFile = d.directory.appendingPathComponent("jwt.secret").path
        try FileManager.default.copyItem(atPath: old, toPath: keyFile)
        try d.writeConfig("jwt-key = HS256:\(keyFile)\n")
        var mark = d.logMark
        d.signal(SIGHUP)
        #expect(d.waitForLog("configuration reloaded", after: mark), "\(d.log(after: mark))")
        let tokens = try JWTMint.sign([
            .init(alg: "HS256", key: old, claims: JWTMint.claims("carol")),
            .init(alg: "HS256", key: new, claims: JWTMint.claims("dave")),
        ])
        let live = try d.connect(headers: [("Authorization", "Bearer \(tokens[0])")])
        #expect(try live.recvJSON()["name"]?.stringValue == "carol")
        try live.subscribe()
        #expect(try TestSocket.refusal(port: d.port, headers: [("Authorization", "Bearer \(tokens[1])")]) == 401)

        // The file is replaced by the new secret: a reload reads it.
        try FileManager.default.removeItem(atPath: keyFile)
        try FileManager.default.copyItem(atPath: new, toPath: keyFile)
        mark = d.logMark
        d.signal(SIGHUP)
        #expect(d.waitForLog("JWT keys re-read", after: mark), "\(d.log(after: mark))")
        #expect(try TestSocket.refusal(port: d.port, headers: [("Authorization", "Bearer \(tokens[0])")]) == 401)
        let fresh = try d.connect(headers: [("Authorization", "Bearer \(tokens[1])")])
        #expect(try fresh.recvJSON()["name"]?.stringValue == "dave")
        // The connection the old key signed keeps its rights until its token expires.
        #expect(try live.answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").type == "ack")

        // A key file made unusable refuses the reload; the keys in force stay.
        try Data("short".utf8).write(to: URL(fileURLWithPath: keyFile))
        mark = d.logMark
        d.signal(SIGHUP)
        #expect(d.waitForLog("configuration reload refused", after: mark), "\(d.log(after: mark))")
        #expect(d.log(after: mark).contains("at least 32 bytes"), "\(d.log(after: mark))")
        let still = try d.connect(headers: [("Authorization", "Bearer \(tokens[1])")])
        #expect(try still.recvJSON()["name"]?.stringValue == "dave")
    }

    @Test(arguments: [
        ("HS256:SHORT", "at least 32 bytes"),
        ("RS256:GARBAGE", "not a PEM public key"),
        ("ES256:RSA", "unusable key"),
        ("jwks:NOKID", "has no 'kid'"),
        ("XX999:RSA", "not an algorithm foldsync verifies"),
        ("HS256:/nonexistent/secret", "cannot read"),
    ])
    func unusableKeysStopTheStartWithOneLine(spec: String, words: String) throws {
        let dir = NSTemporaryDirectory() + "foldsync-jwtcfg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/garbage"))
        try Data(#"{"keys":[{"kty":"oct","alg":"HS256","k":"\#(Base64URL.encode(Array(repeating: 7, count: 32)))"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: dir + "/nokid.json"))
        let value = spec.replacingOccurrences(of: "SHORT", with: try JWTMint.key("short.secret"))
            .replacingOccurrences(of: "GARBAGE", with: dir + "/garbage").replacingOccurrences(of: "RSA", with: try JWTMint.key("rsa.pub"))
            .replacingOccurrences(of: "NOKID", with: dir + "/nokid.json")
        for args in [["--check-config", "--jwt-key", value], ["--listen", "127.0.0.1:0", "--db", dir + "/f.db", "--jwt-key", value]] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: DaemonProcess.binary)
            p.arguments = args
            let err = Pipe()
            p.standardError = err
            p.standardOutput = Pipe()
            try p.run()
            let deadline = Date().addingTimeInterval(10)
            while p.isRunning && Date() < deadline { usleep(10_000) }
            if p.isRunning { p.terminate() }
            p.waitUntilExit()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(p.terminationStatus == 2, "\(args): \(p.terminationStatus) \(text)")
            #expect(text.contains(words), "\(args): \(text)")
        }
    }
}
