import Testing
@testable import FoldCore

/// The history endpoint's parameters and pages: bounded in count and bytes.
@Suite struct HistoryBodyTests {
    func change(_ rev: Int, bytes: Int = 2) -> StoredChange {
        StoredChange(board: "b", rev: rev, ops: [UInt8](repeating: UInt8(ascii: " "), count: bytes))
    }

    @Test func parametersAreReadOrRefusedSayingWhy() throws {
        #expect(try HistoryBody.parameters("").get() == HistoryQuery(.latest, limit: 100))
        #expect(try HistoryBody.parameters("since=4&limit=10").get() == HistoryQuery(.since(4), limit: 10))
        #expect(try HistoryBody.parameters("before=9").get() == HistoryQuery(.before(9), limit: 100))
        for bad in ["since=-1", "limit=0", "limit=1001", "since=1&before=2", "x=1", "since=", "since=1&since=2", "limit=1e3"] {
            guard case .failure(let e) = HistoryBody.parameters(bad) else { Issue.record("\(bad) accepted"); continue }
            #expect(e.code == .badRequest, "\(bad)")
        }
    }

    @Test func pagesKeepTheLimitFromTheRightEnd() {
        let read = (1...4).map { change($0) }
        let forward = HistoryBody.page(read, HistoryQuery(.since(0), limit: 3))
        #expect(forward.entries.map(\.rev) == [1, 2, 3] && forward.more)
        let back = HistoryBody.page(read, HistoryQuery(.before(5), limit: 3))
        #expect(back.entries.map(\.rev) == [2, 3, 4] && back.more)
        let all = HistoryBody.page(read, HistoryQuery(.latest, limit: 4))
        #expect(all.entries.count == 4 && !all.more)
    }

    @Test func pagesStopAtTheByteBoundButNeverComeBackEmpty() {
        let big = HistoryBody.maxPageBytes / 2 + 1
        let read = (1...3).map { change($0, bytes: big) }
        let forward = HistoryBody.page(read, HistoryQuery(.since(0), limit: 10))
        #expect(forward.entries.map(\.rev) == [1] && forward.more)
        let back = HistoryBody.page(read, HistoryQuery(.latest, limit: 10))
        #expect(back.entries.map(\.rev) == [3] && back.more)
        let huge = HistoryBody.page([change(1, bytes: HistoryBody.maxPageBytes * 2)], HistoryQuery(.latest, limit: 10))
        #expect(huge.entries.count == 1 && !huge.more)
    }

    @Test func skeletonsKeepWhereAnOperationActsNotWhatItWrites() {
        let op = PatchOp.add(path: "/sections/2", value: .string(String(repeating: "x", count: 1000)))
        #expect(op.skeleton == .add(path: "/sections/2", value: .null))
        #expect(PatchOp.move(from: "/sections/0", path: "/sections/1").skeleton == .move(from: "/sections/0", path: "/sections/1"))
    }
}
