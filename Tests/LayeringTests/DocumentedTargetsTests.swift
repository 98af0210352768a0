import Foundation
import Testing

/// Every target of Package.swift is in the README's table of targets and on
/// docs/ARCHITECTURE.md: a target added without a word on what it owns fails here.
@Suite struct DocumentedTargetsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL

    /// The names given to `.target`, `.executableTarget`, `.testTarget` and `.systemLibrary`.
    static func targets() throws -> [String] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var names: [String] = []
        for kind in [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary("] {
            var rest = Substring(manifest)
            while let at = rest.range(of: kind) {
                rest = rest[at.upperBound...]
                guard let open = rest.range(of: "name: \""), rest.distance(from: rest.startIndex, to: open.lowerBound) < 40 else { continue }
                let name = rest[open.upperBound...].prefix { $0 != "\"" }
                names.append(String(name))
            }
        }
        return names
    }

    @Test func everyTargetIsInTheReadmesTableAndInTheArchitecturePage() throws {
        let names = try Self.targets()
        #expect(names.count >= 30 && names.contains("FoldHub") && names.contains("LayeringTests") && names.contains("CSQLite"), "\(names)")
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        // The table's rows: lines that start with "| `".
        let table = readme.split(separator: "\n").filter { $0.hasPrefix("| `") }.joined(separator: "\n")
        let architecture = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        for name in names {
            #expect(table.contains("`\(name)`"), "\(name) is missing from README.md's table of targets")
            #expect(architecture.contains("`\(name)`"), "\(name) is missing from docs/ARCHITECTURE.md")
        }
    }
}
