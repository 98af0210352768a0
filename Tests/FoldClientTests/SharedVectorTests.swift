@testable import FoldClient
@testable import FoldCore
import FoldSession
import Foundation
import Testing

/// Tests/vectors: cases that the Swift tests here and the dashboard's
/// `node --test` (Tests/web/unit/vectors.test.mjs) both run, so the logic
/// that exists in both languages (the mirror, item and link rules, follow
/// and browse, reconnect backoff, board globs) cannot drift apart. Every
/// file there must have a reader in both; a case added once runs in both.
@Suite struct SharedVectorTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../vectors").standardizedFileURL

    static let readers: [String: @Sendable (JSON) throws -> Void] = [
        "glob.json": glob, "backoff.json": backoff, "links.json": links, "items.json": items,
        "mirror.json": mirror, "follow.json": follow, "actions.json": actions, "pending.json": pending,
    ]

    static func load(_ name: String) throws -> JSON {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        return try JSONParser.parse(Array(data))
    }

    static func cases(_ file: JSON) throws -> [JSON] { try #require(file["cases"]?.arrayValue) }

    static func number(_ j: JSON?) throws -> Double {
        guard case .number(let text)? = j, let d = Double(text) else { throw FoldError(.invalid, "not a number: \(String(describing: j))") }
        return d
    }

    /// Vector files whose Swift reader lives with the target it pins.
    static let readElsewhere = ["session.json": "FoldSessionTests/SessionVectorTests.swift"]

    @Test func everyVectorFileHasASwiftReader() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.count >= 6, "\(Self.folder.path): \(names)")
        for name in names {
            if let elsewhere = Self.readElsewhere[name] {
                let reader = try String(contentsOf: Self.folder.appendingPathComponent("../\(elsewhere)"), encoding: .utf8)
                #expect(reader.contains(name), "\(elsewhere) does not read \(name)")
                continue
            }
            guard let read = Self.readers[name] else {
                Issue.record("Tests/vectors/\(name) has no Swift reader")
                continue
            }
            try read(try Self.load(name))
        }
    }

    static func glob(_ file: JSON) throws {
        for c in try cases(file) {
            let pattern = try #require(c["pattern"]?.stringValue), name = try #require(c["name"]?.stringValue)
            #expect(Glob.matches(pattern, name) == c["matches"]?.boolValue, "\(pattern) ~ \(name)")
        }
    }

    static func backoff(_ file: JSON) throws {
        let base = try number(file["baseMs"]) / 1000, cap = try number(file["capMs"]) / 1000
        #expect(Backoff().base == base && Backoff().cap == cap, "the clients' defaults are the vectors' bounds")
        for c in try cases(file) {
            var b = Backoff(base: base, cap: cap)
            let attempt = try #require(c["attempt"]?.intValue)
            for _ in 0..<attempt { _ = b.next(random: 0) }
            let delay = (b.next(random: try number(c["random"])) * 1000).rounded()
            #expect(delay == (try number(c["delayMs"])), "attempt \(attempt)")
        }
    }

    static func links(_ file: JSON) throws {
        for c in try cases(file) {
            let href = try #require(c["href"]?.stringValue)
            #expect(Link.isAllowed(href) == c["link"]?.boolValue, "\(href.debugDescription)")
        }
    }

    static func items(_ file: JSON) throws {
        for c in try cases(file) {
            let items = try #require(c["items"]?.arrayValue), shown = try #require(c["shown"]?.arrayValue)
            #expect(items.count == shown.count)
            for (item, expected) in zip(items, shown) {
                let i = Item(item)
                let fields: [(String, String?)] = [("label", i.label), ("detail", i.detail), ("href", i.href), ("badge", i.badge), ("id", i.id)]
                for (name, value) in fields {
                    #expect(value == expected[name]?.stringValue, "\(name) of \(String(decoding: item.encoded(), as: UTF8.self))")
                }
            }
            do throws(FoldError) {
                try Board.checkItems(items, limits: .defaults)
                #expect(c["accepted"]?.boolValue == true, "accepted, but the vector says refused: \(String(describing: c["refused"]))")
            } catch {
                #expect(c["refused"]?["code"]?.stringValue == error.code.rawValue)
                #expect(c["refused"]?["message"]?.stringValue == error.message)
            }
        }
    }

    static func mirror(_ file: JSON) throws {
        for c in try cases(file) {
            let name = c["name"]?.stringValue ?? ""
            var m = BoardMirror(board: try #require(c["board"]?.stringValue))
            for step in try #require(c["steps"]?.arrayValue) {
                let message = try #require(step["message"])
                // A message type the client does not know decodes to nothing, which the mirror leaves alone.
                let outcome = ServerEvent.decode(message).map { m.apply($0) } ?? .unchanged
                let kind: String, reason: String?
                switch outcome {
                case .changed: (kind, reason) = ("changed", nil)
                case .unchanged: (kind, reason) = ("unchanged", nil)
                case .presence: (kind, reason) = ("presence", nil)
                case .deleted: (kind, reason) = ("deleted", nil)
                case .outOfStep(let why): (kind, reason) = ("outOfStep", why)
                }
                #expect(kind == step["outcome"]?.stringValue, "\(name): \(String(decoding: message.encoded(), as: UTF8.self))")
                if let expected = step["reason"]?.stringValue { #expect(reason == expected, "\(name)") }
                if let rev = step["rev"] { #expect(m.position?.rev == rev.intValue || (rev == .null && m.state == nil), "\(name)") }
                if let state = step["state"] { #expect(m.state ?? .null == state, "\(name)") }
                if let viewers = step["viewers"] { #expect(m.viewers == viewers.intValue && m.following == step["following"]?.intValue) }
            }
        }
    }

    /// The board's rules as the daemon's core applies them: a board, one
    /// action, the board after it (unchanged: a no-op) or the error's code.
    static func actions(_ file: JSON) throws {
        for c in try cases(file) {
            let name = c["name"]?.stringValue ?? "?"
            let before = try Board(json: try #require(c["board"]), limits: .defaults)
            var message = try #require(c["action"]?.objectValue)
            message["board"] = .string("b")
            let outcome: Result<JSON, FoldError>
            switch ClientMessage.decode(.object(message), limits: .defaults) {
            case .success(.action(let request)):
                do throws(FoldError) { outcome = .success(try before.applying(request.action, limits: .defaults)?.board.json ?? before.json) } catch { outcome = .failure(error) }
            case .success(let other): throw FoldError(.invalid, "\(name): not an action: \(other)")
            case .failure(let e): outcome = .failure(FoldError(e.code, e.message))
            }
            switch outcome {
            case .success(let after):
                #expect(c["error"] == nil, "\(name): applied, expected \(String(describing: c["error"]))")
                #expect(after == c["after"], "\(name)")
            case .failure(let e):
                #expect(c["error"]?.stringValue == e.code.rawValue, "\(name): \(e)")
            }
        }
    }

    static func action(_ message: JSON, _ name: String) throws -> Action {
        var object = try #require(message.objectValue, "\(name)")
        object["board"] = .string("b")
        guard case .success(.action(let request)) = ClientMessage.decode(.object(object), limits: .defaults) else {
            throw FoldError(.invalid, "\(name): not an action")
        }
        return request.action
    }

    /// The optimistic state: a confirmed board, then calls, patches, acks,
    /// refusals and resyncs; after each, the board shown and the keys pending.
    static func pending(_ file: JSON) throws {
        for c in try cases(file) {
            let name = c["name"]?.stringValue ?? "?"
            let session = try #require(c["session"]?.stringValue)
            var confirmed = try #require(c["confirmed"]?["board"])
            var rev = try #require(c["confirmed"]?["rev"]?.intValue)
            var pending = PendingActions()
            for (i, step) in try #require(c["steps"]?.arrayValue).enumerated() {
                var rolledBack: String?
                if let act = step["act"] {
                    pending.add(key: try #require(act["key"]?.stringValue), action: try action(try #require(act["action"]), name), ifRev: act["ifRev"]?.intValue)
                } else if let patch = step["patch"] {
                    let before = confirmed
                    confirmed = try JSONPatch.apply(try #require(patch["ops"]), to: confirmed)
                    rev = try #require(patch["rev"]?.intValue)
                    let by = patch["by"]?.stringValue
                    pending.patched(rev: rev, before: before, after: confirmed, own: by == nil || by == session)
                } else if let ack = step["ack"] {
                    pending.acked(key: try #require(ack["key"]?.stringValue), rev: try #require(ack["rev"]?.intValue), confirmedRev: rev)
                } else if let refused = step["refused"] {
                    rolledBack = pending.remove(key: try #require(refused["key"]?.stringValue))?.key
                } else if let snapshot = step["snapshot"] {
                    confirmed = try #require(snapshot["board"])
                    rev = try #require(snapshot["rev"]?.intValue)
                    pending.resynced(rev: rev)
                }
                #expect(pending.shown(confirmed: confirmed, rev: rev) == step["state"], "\(name), step \(i)")
                #expect(pending.keys == (step["pending"]?.arrayValue ?? []).compactMap(\.stringValue), "\(name), step \(i)")
                #expect(rolledBack == step["rolledBack"]?.stringValue, "\(name), step \(i)")
            }
        }
    }

    static func follow(_ file: JSON) throws {
        for c in try cases(file) {
            let name = c["name"]?.stringValue ?? ""
            var model = LiveModel(board: "b", rows: 40, columns: 100)
            model.update(document: try Board(json: try #require(c["board"]), limits: .defaults), position: Position(epoch: "e", rev: 1))
            for step in try #require(c["steps"]?.arrayValue) {
                model.expire(now: .infinity)
                switch step["do"]?.stringValue {
                case "browse": if model.following { _ = model.toggleFollowing(now: 0) }
                case "follow": if !model.following { _ = model.toggleFollowing(now: 0) }
                case "toggle": _ = model.fold(.toggle(section: try #require(step["section"]?.stringValue)), now: 0)
                case "expandAll": _ = model.fold(.expandAll, now: 0)
                case "collapseAll": _ = model.fold(.collapseAll, now: 0)
                case nil: model.update(document: try Board(json: try #require(step["board"]), limits: .defaults), position: Position(epoch: "e", rev: 2))
                case let other?: Issue.record("\(name): unknown step \(other)")
                }
                let open = (model.shown?.sections ?? []).filter(\.expanded).map { JSON.string($0.id) }
                #expect(JSON.array(open) == step["open"], "\(name): after \(String(decoding: step.encoded(), as: UTF8.self).prefix(80))")
                if let following = step["following"]?.boolValue { #expect(model.following == following, "\(name)") }
                if let error = step["error"]?.stringValue {
                    #expect(model.flash?.text.hasSuffix(error) == true, "\(name): \(String(describing: model.flash))")
                }
            }
        }
    }
}
