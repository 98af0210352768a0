import Foundation
@_exported import FoldTestSupport
@testable import FoldCore

enum Fixtures {
    /// The RFC 6902 suite (see `ConformanceSuite`).
    static func conformanceDirectory(filePath: String = #filePath) -> URL? {
        ConformanceSuite.directory("json-patch-tests", marker: "tests.json", filePath: filePath)
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
