import Foundation
import Testing
@testable import FoldCore

/// Replays the fuzzers' seeds and every input kept from a crash (Tests/Fuzz/seeds,
/// Tests/Fuzz/regressions) through the checks the fuzz targets make.
@Suite struct FuzzRegressionTests {
    static func inputs() -> [URL] {
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { dir.deleteLastPathComponent() }
        let fm = FileManager.default
        return ["Tests/Fuzz/seeds", "Tests/Fuzz/regressions"].flatMap { sub -> [URL] in
            let d = dir.appendingPathComponent(sub)
            return ((try? fm.contentsOfDirectory(at: d, includingPropertiesForKeys: nil)) ?? []).sorted { $0.path < $1.path }
        }
    }

    @Test func seedsAreThere() {
        #expect(Self.inputs().count >= 4)
    }

    @Test(arguments: inputs())
    func replays(_ file: URL) throws {
        let bytes = try [UInt8](Data(contentsOf: file))
        let limits = Limits()
        guard let json = try? JSONParser.parse(bytes, maxDepth: limits.maxJSONDepth) else { return }
        if case .success(.action(let request)) = ClientMessage.decode(json, limits: limits) {
            var multi = Board.initial
            multi.mode = .multi
            for board in [Board.initial, multi] {
                guard let change = try? board.applying(request.action, limits: limits) else { continue }
                #expect(try JSONPatch.apply(change.ops, to: board.json) == change.board.json)
            }
        }
        if let board = try? Board(json: json, limits: limits) {
            #expect(try Board(json: JSONParser.parse(board.encoded(), maxDepth: 64), limits: limits) == board)
        }
    }
}
