import Foundation
import Testing

/// FoldHub stays pure: its sources import FoldCore and nothing else (no
/// transport, store, Foundation or Glibc), so every decision runs in a test.
@Suite struct LayeringTests {
    @Test func theHubImportsOnlyTheCore() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/FoldHub").standardizedFileURL
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10)
        for file in files {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") || $0.hasPrefix("@testable import ") }
            #expect(imports.allSatisfy { $0 == "import FoldCore" }, "\(file): \(imports)")
        }
    }
}
