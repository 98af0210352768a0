import Foundation
import Testing

/// The arrows of Package.swift, checked in the sources: the core imports
/// nothing, and each C library has exactly one Swift target importing it.
@Suite struct CoreLayeringTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources").standardizedFileURL

    /// (target, import line) for every Swift file under Sources.
    static func imports() throws -> [(target: String, line: String)] {
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
        var out: [(String, String)] = []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            let target = String(file.prefix { $0 != "/" })
            for line in text.split(separator: "\n") where line.hasPrefix("import ") { out.append((target, String(line))) }
        }
        return out
    }

    @Test func theCoreImportsNothing() throws {
        let core = try Self.imports().filter { $0.target == "FoldCore" }
        #expect(core.isEmpty, "\(core.map(\.line))")
    }

    @Test(arguments: [("CSQLite", "FoldStore"), ("CCrypto", "FoldCrypto"), ("CLibWebSockets", "FoldTransport")])
    func oneImporterPerCLibrary(module: String, owner: String) throws {
        let importers = Set(try Self.imports().filter { $0.line == "import \(module)" }.map(\.target))
        #expect(importers == [owner])
    }
}
