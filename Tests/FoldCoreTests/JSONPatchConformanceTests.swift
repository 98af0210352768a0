import Foundation
import Testing
@testable import FoldCore

/// Every enabled record of the shared json-patch-tests suite. Records with
/// `error` must throw; with `expected`, must produce it; the rest (only a
/// comment, or `disabled`) are skipped. A missing suite is a failure.
@Suite struct JSONPatchConformanceTests {
    @Test(arguments: ["tests.json", "spec_tests.json"])
    func conformance(_ file: String) throws {
        let dir = try #require(Fixtures.conformanceDirectory(), "conformance suite not found; set FOLDSYNC_CONFORMANCE_DIR")
        let data = try Data(contentsOf: dir.appendingPathComponent(file))
        // The suite itself holds duplicate keys (in disabled records).
        let records = try #require(JSONParser.parse(Array(data), allowDuplicateKeys: true).arrayValue)
        #expect(records.count > 10)
        var checked = 0
        for (i, record) in records.enumerated() {
            if record["disabled"]?.boolValue == true { continue }
            guard let doc = record["doc"], let patch = record["patch"] else { continue }
            let label = "\(file) #\(i): \(record["comment"]?.stringValue ?? "")"
            if record["error"] != nil {
                #expect(throws: FoldError.self, "\(label)") { try JSONPatch.apply(patch, to: doc) }
                checked += 1
            } else if let expected = record["expected"] {
                do {
                    let result = try JSONPatch.apply(patch, to: doc)
                    #expect(result == expected, "\(label)")
                } catch {
                    Issue.record("\(label): unexpected \(error)")
                }
                checked += 1
            }
        }
        #expect(checked > 10)
    }
}

@Suite struct JSONPatchTests {
    @Test func pointerEscaping() throws {
        #expect(JSONPointer.make(["a/b", "m~n", "x"]) == "/a~1b/m~0n/x")
        #expect(try JSONPointer.tokens("/a~1b/m~0n/~01") == ["a/b", "m~n", "~1"])
        #expect(try JSONPointer.tokens("") == [])
        #expect(try JSONPointer.tokens("/") == [""])
        #expect(throws: FoldError.self) { try JSONPointer.tokens("a") }
        #expect(throws: FoldError.self) { try JSONPointer.tokens("/a~2") }
        let doc = try parse("{\"a/b\":{\"m~n\":1}}")
        let ops: [PatchOp] = [.replace(path: JSONPointer.make(["a/b", "m~n"]), value: .int(2))]
        #expect(try JSONPatch.apply(ops, to: doc) == parse("{\"a/b\":{\"m~n\":2}}"))
    }

    @Test func opsEncodeLikeTheirJSON() throws {
        let ops: [PatchOp] = [
            .add(path: "/a", value: .int(1)), .remove(path: "/b"), .replace(path: "/c", value: .null),
            .move(from: "/d", path: "/e"), .copy(from: "/f", path: "/g"), .test(path: "/h", value: .string("x\n")),
        ]
        #expect(PatchOp.encode(ops) == JSON.array(ops.map(\.json)).encoded())
        #expect(try JSONPatch.decode(JSONParser.parse(PatchOp.encode(ops))) == ops)
        #expect(text(PatchOp.encode([.move(from: "/d", path: "/e")])) == "[{\"op\":\"move\",\"from\":\"/d\",\"path\":\"/e\"}]")
    }

    @Test func errorCodes() throws {
        let doc = try parse("{\"a\":[1,2]}")
        func code(_ patch: String) -> ErrorCode? {
            do { _ = try JSONPatch.apply(parse(patch), to: doc); return nil } catch let e as FoldError { return e.code } catch { return nil }
        }
        #expect(code("{}") == .badRequest)
        #expect(code("[{\"op\":\"nope\",\"path\":\"/a\"}]") == .badRequest)
        #expect(code("[{\"op\":\"remove\",\"path\":\"/zz\"}]") == .invalid)
        #expect(code("[{\"op\":\"add\",\"path\":\"/a/3\",\"value\":1}]") == .invalid)
        #expect(code("[{\"op\":\"test\",\"path\":\"/a/0\",\"value\":2}]") == .conflict)
        #expect(code("[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/0\"}]") == .invalid)
        #expect(code("[{\"op\":\"test\",\"path\":\"/a/0\",\"value\":1.0}]") == nil)
    }

    @Test func leavesTheInputUntouchedOnError() throws {
        let doc = try parse("{\"a\":{\"b\":[1]}}")
        let before = doc
        #expect(throws: FoldError.self) {
            try JSONPatch.apply([.add(path: "/a/b/-", value: .int(2)), .remove(path: "/nope")], to: doc)
        }
        #expect(doc == before)
    }
}
