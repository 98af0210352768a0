import Foundation
@_exported import FoldTestSupport
@testable import FoldCore

enum Fixtures {
    /// The shared conformance suite: $FOLDSYNC_CONFORMANCE_DIR when set, else the
    /// first `shared/conformance/json-patch-tests` found walking up from this
    /// file (the repository sits next to `shared/`). Nil when missing, and
    /// the tests that need it then fail.
    static func conformanceDirectory(filePath: String = #filePath) -> URL? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["FOLDSYNC_CONFORMANCE_DIR"], !env.isEmpty {
            // Set means authoritative: either the suite folder itself or its parent, else missing.
            let url = URL(fileURLWithPath: env)
            return [url, url.appendingPathComponent("json-patch-tests")].first {
                fm.fileExists(atPath: $0.appendingPathComponent("tests.json").path)
            }
        }
        var dir = URL(fileURLWithPath: filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared/conformance/json-patch-tests")
            if fm.fileExists(atPath: candidate.appendingPathComponent("tests.json").path) { return candidate }
            dir.deleteLastPathComponent()
        }
        return nil
    }
}

func parse(_ text: String, maxDepth: Int = 64) throws -> JSON {
    try JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// A board of `count` sections with `itemsPerSection` items each.
func bigBoard(sections count: Int, itemsPerSection: Int, mode: BoardMode = .single) -> Board {
    Board(mode: mode, sections: (0..<count).map { i in
        Section(id: "s\(i)", title: "Section \(i)",
                items: (0..<itemsPerSection).map { .string("item \(i).\($0)") })
    })
}

/// The error code `body` fails with, or nil when it succeeds.
func errorCode(_ body: () throws(FoldError) -> Void) -> ErrorCode? {
    do throws(FoldError) {
        try body()
        return nil
    } catch {
        return error.code
    }
}
