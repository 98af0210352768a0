import FoldCore
import FoldSession
import Foundation
import Testing

/// Tests/vectors/session.json through `SessionMachine`: the same cases run
/// against the JavaScript and Python session machines
/// (Tests/js-client/session-vectors.test.mjs, clients/python/tests/test_session_vectors.py).
@Suite struct SessionVectorTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../vectors/session.json").standardizedFileURL

    static func cases() throws -> [JSON] {
        let text = try String(contentsOf: file, encoding: .utf8)
        return try #require(try JSONParser.parse(text)["cases"]?.arrayValue)
    }

    @Test func theVectorsAreRead() throws {
        // A reader that found no cases would pass every case below.
        #expect(try Self.cases().count >= 20)
    }

    @Test(arguments: try SessionVectorTests.cases().indices)
    func sessionCase(_ index: Int) throws {
        let c = try Self.cases()[index]
        let name = c["name"]?.stringValue ?? "case \(index)"
        var token = SessionMachine.Token.none
        if let t = c["token"] {
            if t.stringValue == "provider" { token = .provider } else if let v = t["value"]?.stringValue { token = .value(v) }
        }
        var limits = OutboxLimits()
        if let n = c["outbox"]?["maxActions"]?.intValue { limits.maxActions = n }
        if let a = c["outbox"]?["maxAge"].flatMap(Self.double) { limits.maxAge = a }
        var machine = SessionMachine(clientID: c["client"]?.stringValue ?? "c1", token: token, limits: limits,
                                     endpoints: c["endpoints"]?.intValue ?? 1)
        var now = 0.0
        for (i, step) in (c["steps"]?.arrayValue ?? []).enumerated() {
            if let at = step["at"].flatMap(Self.double) { now = at }
            let input = try #require(Self.input(step["in"]), "\(name), step \(i): unreadable input \(step["in"].map { String(decoding: $0.encoded(), as: UTF8.self) } ?? "none")")
            let got = machine.handle(input, now: now, random: step["random"].flatMap(Self.double) ?? 0.5).compactMap(Self.json)
            let want = step["out"]?.arrayValue ?? []
            let text = { (j: [JSON]) in j.map { String(decoding: $0.encoded(), as: UTF8.self) }.joined(separator: "\n  ") }
            #expect(Self.matches(got, want), "\(name), step \(i): got\n  \(text(got))\nwanted\n  \(text(want))")
        }
    }

    static func double(_ j: JSON) -> Double? {
        if case .number(let text) = j { return Double(text) }
        return nil
    }

    /// The vectors' input vocabulary (session.json's `about`).
    static func input(_ j: JSON?) -> SessionMachine.Input? {
        guard let j, case .object(let o) = j, o.count == 1 else { return nil }
        let (kind, body) = Array(o)[0]
        switch kind {
        case "start": return .start
        case "token": return .token(body["token"]?.stringValue, failure: body["failure"]?.stringValue, refresh: body["refresh"]?.boolValue ?? false)
        case "received": return ServerEvent.decode(body).map { .received($0) }
        case "closed": return .closed(reason: body["reason"]?.stringValue ?? "", status: body["status"]?.intValue)
        case "retry": return .retry
        case "tick": return .tick
        case "close": return .close
        case "suspend": return .suspend
        case "resume": return .resume
        case "subscribe": return body["board"]?.stringValue.map { .subscribe($0) }
        case "unsubscribe": return body["board"]?.stringValue.map { .unsubscribe($0) }
        case "view": return body["following"]?.boolValue.map { .view(following: $0) }
        case "cancel": return body["call"]?.intValue.map { .cancel(UInt64($0)) }
        case "act":
            guard let call = body["call"]?.intValue, let board = body["board"]?.stringValue, var action = body["action"]?.objectValue else { return nil }
            action["board"] = .string(board)
            guard case .success(let request) = ActionRequest.decode(.object(action), board: board, limits: .defaults) else { return nil }
            return .act(UInt64(call), board: board, action: request.action, ifRev: body["ifRev"]?.intValue)
        default: return nil
        }
    }

    static func number(_ d: Double) -> JSON {
        d == d.rounded() && abs(d) < 1e15 ? .int(Int(d)) : .number(String(d))
    }

    static func error(_ e: SyncError) -> JSON { .object(["code": .string(e.code), "message": .string(e.message)]) }

    /// The vectors' output vocabulary; `show` is not in it (what a board
    /// shows is in each `change`).
    static func json(_ output: SessionMachine.Output) -> JSON? {
        func one(_ kind: String, _ body: JSONObject) -> JSON { .object([kind: .object(body)]) }
        switch output {
        case .connect(let token, let endpoint): return one("connect", ["token": token.map(JSON.string) ?? .null, "endpoint": .int(endpoint)])
        case .askToken(let refresh): return one("askToken", ["refresh": .bool(refresh)])
        case .send(let bytes): return .object(["send": (try? JSONParser.parse(String(decoding: bytes, as: UTF8.self))) ?? .null])
        case .disconnect: return one("disconnect", [:])
        case .state(let s):
            switch s {
            case .connecting: return one("state", ["name": .string("connecting")])
            case .connected: return one("state", ["name": .string("connected")])
            case .closed: return one("state", ["name": .string("closed")])
            case .suspended: return one("state", ["name": .string("suspended")])
            case .disconnected(let reason, let retryIn):
                return one("state", ["name": .string("disconnected"), "reason": .string(reason), "retryIn": number(retryIn)])
            }
        case .retry(let after): return one("retry", ["after": number(after)])
        case .tick(let after): return one("tick", ["after": number(after)])
        case .resolve(let t, let rev): return one("resolve", ["call": .int(Int(t)), "rev": .int(rev)])
        case .reject(let t, let e): return one("reject", ["call": .int(Int(t)), "code": .string(e.code), "message": .string(e.message)])
        case .ready(let b): return one("ready", ["board": .string(b)])
        case .refused(let b, let e): return one("refused", ["board": .string(b), "code": .string(e.code), "message": .string(e.message)])
        case .show: return nil
        case .change(let b, let c):
            return one("change", [
                "board": .string(b), "rev": .int(c.rev), "epoch": .string(c.epoch), "ops": c.ops ?? .null, "state": c.state,
                "confirmed": c.confirmed, "resynced": .bool(c.resynced), "reason": c.reason.map(JSON.string) ?? .null,
                "local": .bool(c.local),
                "rolledBack": c.rolledBack.map { .object(["key": .string($0.key), "code": .string($0.error.code)]) } ?? .null,
            ])
        case .presence(let b, let viewers, let following):
            return one("presence", ["board": .string(b), "viewers": viewers.map(JSON.int) ?? .null, "following": following.map(JSON.int) ?? .null])
        case .deleted(let b): return one("deleted", ["board": .string(b)])
        case .tokenFailed(let why): return one("tokenFailed", ["message": .string(why)])
        case .finished: return one("finished", [:])
        }
    }

    /// Same kinds in the same order; every field a wanted output names has
    /// the value given (a `send` is compared whole).
    static func matches(_ got: [JSON], _ want: [JSON]) -> Bool {
        guard got.count == want.count else { return false }
        for (g, w) in zip(got, want) {
            guard case .object(let go) = g, case .object(let wo) = w, go.count == 1 else { return false }
            let (kind, gb) = Array(go)[0]
            guard let wb = wo[kind] else { return false }
            if kind == "send" {
                if gb != wb { return false }
                continue
            }
            guard case .object(let wfields) = wb else { return false }
            for (field, value) in wfields where gb[field] != value { return false }
        }
        return true
    }
}
