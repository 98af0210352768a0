import Foundation
import Testing

/// The arrows of Package.swift, checked in the sources: the core imports
/// nothing, the hub only the core, and each C library has exactly one Swift
/// target importing it.
@Suite struct CoreLayeringTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources").standardizedFileURL

    /// (target, module, line) for every import declaration in every Swift file under Sources.
    static func imports() throws -> [(target: String, module: String, line: String)] {
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
        var out: [(String, String, String)] = []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            let target = String(file.prefix { $0 != "/" })
            out += SwiftImports.modules(in: text).map { (target, $0.module, $0.line) }
        }
        return out
    }

    @Test func theSourcesAreRead() throws {
        // A reader that finds nothing would pass every check below.
        let all = try Self.imports()
        #expect(all.contains { $0.target == "FoldTransport" && $0.module == "CLibWebSockets" })
        #expect(all.contains { $0.target == "FoldHub" && $0.module == "FoldCore" })
        #expect(all.count > 100)
    }

    @Test func theCoreImportsNothing() throws {
        let core = try Self.imports().filter { $0.target == "FoldCore" }
        #expect(core.isEmpty, "\(core.map(\.line))")
    }

    /// FoldHub stays pure: FoldCore and nothing else (no transport, store,
    /// Foundation or Glibc), so every decision runs in a test.
    @Test func theHubImportsOnlyTheCore() throws {
        let hub = try Self.imports().filter { $0.target == "FoldHub" }
        #expect(hub.count > 10)
        let others = hub.filter { $0.module != "FoldCore" }
        #expect(others.isEmpty, "\(others.map(\.line))")
    }

    /// The option table and the daemon's configuration are a target of their
    /// own, over the core: the hub takes its settings, never the table.
    @Test func theConfigurationImportsOnlyTheCoreAndTheHubNotIt() throws {
        let all = try Self.imports()
        let config = all.filter { $0.target == "FoldConfig" }
        #expect(config.count >= 3)
        #expect(config.allSatisfy { $0.module == "FoldCore" }, "\(config.map(\.line))")
        #expect(!all.contains { $0.target == "FoldHub" && $0.module == "FoldConfig" })
    }

    /// The write path's decisions touch no libwebsockets: the machine and
    /// its pacing import neither lws nor anything that performs I/O for them.
    @Test func theWriteMachineKnowsNoLibWebSockets() throws {
        for file in ["FoldTransport/Writing/WriteMachine.swift", "FoldTransport/Writing/Pacing.swift"] {
            let text = try String(contentsOfFile: Self.sources.appendingPathComponent(file).path, encoding: .utf8)
            let modules = SwiftImports.modules(in: text).map(\.module)
            #expect(!modules.isEmpty || text.contains("struct"), "\(file) was not read")
            #expect(Set(modules).isSubset(of: ["Glibc", "Dispatch"]), "\(file): \(modules)")
        }
    }

    /// Where threads meet stands below the transport: the mailbox and the
    /// threads target know nothing of libwebsockets (the waker is handed its call).
    @Test func theMailboxAndTheThreadsKnowNoTransport() throws {
        let all = try Self.imports()
        let threads = all.filter { $0.target == "FoldSystem" && $0.module.hasPrefix("Fold") }
        #expect(threads.isEmpty, "\(threads.map(\.line))")
        let mailbox = all.filter { $0.target == "FoldMailbox" }
        #expect(mailbox.map(\.module) == ["FoldSystem"], "\(mailbox.map(\.line))")
    }

    /// `errno` is read in one place, FoldSystem's `systemCall`: every other
    /// C call goes through it (a SystemError's `errno` field and `errno:`
    /// labels are not reads of the C variable).
    @Test func errnoIsReadOnlyByTheChecker() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }
        var readers: [String] = []
        var checked = 0
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: Self.sources.appendingPathComponent(file).path, encoding: .utf8)
            checked += 1
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where ErrnoReads.reads(line) && file != "FoldSystem/SystemError.swift" {
                readers.append("\(file):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(checked > 200)
        #expect(readers.isEmpty, "\(readers.joined(separator: "\n"))")
    }

    @Test(arguments: ["if errno == EINTR { continue }", "let e = Glibc.errno", "throw E(errno)", "x(errno: errno)"])
    func anErrnoReadIsSeen(line: String) { #expect(ErrnoReads.reads(Substring(line))) }

    @Test(arguments: ["result = c.out.refused(code: error.errno)", "/// its errno", "public let errno: Int32",
                      "init(call: String, errno: Int32)", "// errno == EINTR", "let errnoText = 1"])
    func whatOnlyNamesErrnoIsNoRead(line: String) { #expect(!ErrnoReads.reads(Substring(line))) }

    /// FoldSession is every Swift client's session, Apple's included: it
    /// may import FoldCore and nothing else (no C module, no Foundation).
    @Test func theSessionImportsOnlyTheCore() throws {
        let session = try Self.imports().filter { $0.target == "FoldSession" }
        #expect(session.count >= 5)
        let others = session.filter { $0.module != "FoldCore" }
        #expect(others.isEmpty, "\(others.map(\.line))")
    }

    /// FoldSyncKit is what an Apple app adds: nothing in its graph may be a
    /// C module (an app cannot link Debian's libraries). Its dependencies in
    /// Package.swift are FoldCore and FoldSession, and the imports of all
    /// three are Apple's or each other's.
    @Test func theAppleLibraryHasNoCModuleInItsGraph() throws {
        let manifest = try String(contentsOf: Self.sources.appendingPathComponent("../Package.swift").standardizedFileURL, encoding: .utf8)
        let declaration = try #require(manifest.range(of: ".target(name: \"FoldSyncKit\", dependencies: ["))
        let list = manifest[declaration.upperBound...].prefix { $0 != "]" }
        let dependencies = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        #expect(Set(dependencies) == ["FoldCore", "FoldSession"], "\(dependencies)")
        let allowed: Set<String> = ["FoldCore", "FoldSession", "Foundation", "FoundationNetworking", "Observation", "UIKit", "SwiftUI"]
        let graph = try Self.imports().filter { ["FoldSyncKit", "FoldSession", "FoldCore"].contains($0.target) }
        #expect(graph.contains { $0.target == "FoldSyncKit" && $0.module == "FoldSession" })
        let outside = graph.filter { !allowed.contains($0.module) }
        #expect(outside.isEmpty, "\(outside.map { "\($0.target): \($0.line)" })")
    }

    /// Every target's dependencies as Package.swift declares them (by name, C modules included).
    static func manifestTargets() throws -> [String: [String]] {
        let manifest = try String(contentsOf: sources.appendingPathComponent("../Package.swift").standardizedFileURL, encoding: .utf8)
        var targets: [String: [String]] = [:]
        for kind in [".target(name: \"", ".executableTarget(name: \""] {
            var rest = manifest[...]
            while let start = rest.range(of: kind) {
                let name = String(rest[start.upperBound...].prefix { $0 != "\"" })
                rest = rest[start.upperBound...]
                let declaration = rest.prefix { $0 != ")" }
                var dependencies: [String] = []
                if let list = declaration.range(of: "dependencies: [") {
                    dependencies = declaration[list.upperBound...].prefix { $0 != "]" }.split(separator: ",")
                        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                }
                targets[name] = dependencies
            }
        }
        return targets
    }

    /// The targets an executable is built from: itself and every dependency, transitively.
    static func linked(into executable: String, _ targets: [String: [String]]) -> Set<String> {
        var seen: Set<String> = []
        var next = [executable]
        while let t = next.popLast() {
            guard seen.insert(t).inserted else { continue }
            next += targets[t] ?? []
        }
        return seen
    }

    /// The Debian package's executables link FoundationEssentials at most:
    /// full Foundation brings FoundationInternationalization and ICU's data
    /// (34 MB of each static executable's 59 MB). Checked on the imports of
    /// every target `foldsyncd` and `foldsync` are built from, as the
    /// manifest has them; FoldSyncKit, FoldSyncClient and the benchmark may.
    @Test func theExecutablesImportNoFullFoundation() throws {
        let targets = try Self.manifestTargets()
        let daemon = Self.linked(into: "foldsyncd", targets), client = Self.linked(into: "foldsync", targets)
        // A manifest that was misread would leave nothing to check.
        #expect(daemon.isSuperset(of: ["foldsyncd", "FoldDaemon", "FoldStore", "FoldPostgres", "FoldTransport", "FoldSystem", "FoldCore", "FoldHub"]), "\(daemon)")
        #expect(client.isSuperset(of: ["foldsync", "FoldClient", "FoldSession", "FoldTransport", "FoldSystem", "FoldCore"]), "\(client)")
        #expect(!daemon.union(client).contains("FoldSyncKit") && !daemon.union(client).contains("FoldSyncClient"))
        let full: Set<String> = ["Foundation", "FoundationNetworking", "FoundationXML", "FoundationInternationalization", "_FoundationICU"]
        let found = try Self.imports().filter { daemon.union(client).contains($0.target) && full.contains($0.module) }
        #expect(found.isEmpty, "\(found.map { "\($0.target): \($0.line)" })")
    }

    @Test(arguments: [("CSQLite", "FoldStore"), ("CCrypto", "FoldCrypto"), ("CLibWebSockets", "FoldTransport"),
                      ("CLibPQ", "FoldPostgres")])
    func oneImporterPerCLibrary(module: String, owner: String) throws {
        let importers = Set(try Self.imports().filter { $0.module == module }.map(\.target))
        #expect(importers == [owner])
    }
}

/// The reader itself: every form of an import declaration Swift accepts is
/// seen, with its module; what only looks like one is not.
@Suite struct SwiftImportsTests {
    @Test(arguments: [
        ("import Foundation", "Foundation"),
        ("    import Glibc", "Glibc"),
        ("\timport Glibc", "Glibc"),
        ("@preconcurrency import Dispatch", "Dispatch"),
        ("@_exported import FoldCore", "FoldCore"),
        ("@testable import FoldHub", "FoldHub"),
        ("@_implementationOnly import CSQLite", "CSQLite"),
        ("@_spi(Internal) import FoldTransport", "FoldTransport"),
        ("@_spi(A) @preconcurrency import Foundation", "Foundation"),
        ("public import Foundation", "Foundation"),
        ("package import Foundation", "Foundation"),
        ("internal import Foundation", "Foundation"),
        ("import struct Foundation.Date", "Foundation"),
        ("import func Glibc.write", "Glibc"),
        ("import class Foundation.Thread", "Foundation"),
        ("import protocol FoldCore.BoardStore", "FoldCore"),
        ("import enum FoldCore.Action", "FoldCore"),
        ("import typealias FoldCore.X", "FoldCore"),
        ("import var Glibc.errno", "Glibc"),
        ("import let Glibc.x", "Glibc"),
        ("import Foundation.NSString", "Foundation"),
        ("import Foundation // the clock", "Foundation"),
        ("import Foundation;", "Foundation"),
        ("let x = 1; import Glibc", "Glibc"),
    ])
    func anImportFormIsSeen(line: String, module: String) {
        #expect(SwiftImports.modules(in: line).map(\.module) == [module], "\(line)")
    }

    @Test func importsUnderConditionalCompilationAreSeen() {
        let text = """
            #if canImport(Glibc)
              import Glibc
            #elseif canImport(Darwin)
                @preconcurrency import Darwin
            #endif
            import A; import B
            """
        #expect(SwiftImports.modules(in: text).map(\.module) == ["Glibc", "Darwin", "A", "B"])
    }

    @Test(arguments: ["// import Foundation", "/// import Foundation", "let important = 1", "func imports() {}",
                      "importFoundation()", "let s = \"x\" // then import Glibc", "x.import(Foundation)"])
    func whatOnlyLooksLikeAnImportIsNot(line: String) {
        #expect(SwiftImports.modules(in: line).isEmpty, "\(line)")
    }
}

/// Finds import declarations in Swift source text without a parser: each
/// statement (lines split on `;`, line comments dropped), with any
/// attributes (`@preconcurrency`, `@_exported`, `@_spi(X)` ...) and access
/// modifiers before `import`, and an optional kind (`struct`, `func` ...)
/// after it; the module is the first component of the path.
enum SwiftImports {
    static let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private", "open"]
    static let kinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]

    static func modules(in text: String) -> [(module: String, line: String)] {
        var out: [(String, String)] = []
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let code = rawLine.range(of: "//").map { rawLine[..<$0.lowerBound] } ?? rawLine[...]
            for statement in code.split(separator: ";") {
                if let module = module(of: statement) { out.append((module, String(rawLine))) }
            }
        }
        return out
    }

    static func module(of statement: Substring) -> String? {
        var words = statement.split(whereSeparator: \.isWhitespace)[...]
        while let w = words.first, w.hasPrefix("@") || modifiers.contains(w) { words = words.dropFirst() }
        guard words.first == "import" else { return nil }
        words = words.dropFirst()
        if let w = words.first, kinds.contains(w) { words = words.dropFirst() }
        guard let path = words.first, let first = path.split(separator: ".").first,
              first.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return String(first)
    }
}

/// A line that reads C's `errno`: the word `errno` in code (not a comment),
/// not a member (`.errno`), not a label or parameter (`errno:`), not
/// declared (`let errno`).
enum ErrnoReads {
    static func reads(_ rawLine: Substring) -> Bool {
        let code = rawLine.range(of: "//").map { rawLine[..<$0.lowerBound] } ?? rawLine
        var rest = code[...]
        while let r = rest.range(of: "errno") {
            let before = rest[..<r.lowerBound].last
            let after = rest[r.upperBound...].first
            let word = !(before.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false)
                && !(after.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false)
            let member = before == "." && !rest[..<r.lowerBound].hasSuffix("Glibc.")
            let label = rest[r.upperBound...].drop { $0 == " " }.first == ":"
            let declared = rest[..<r.lowerBound].hasSuffix("let ") || rest[..<r.lowerBound].hasSuffix("var ")
            if word && !member && !label && !declared { return true }
            rest = rest[r.upperBound...]
        }
        return false
    }
}
