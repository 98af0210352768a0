@testable import FoldTransport
import Testing

/// Fan-out id lists resolved once per array: the same storage is served
/// from the cache, any other array (a changed list, a copy) is resolved anew.
@Suite struct AudiencesTests {
    final class Member {
        let id: UInt64
        init(_ id: UInt64) { self.id = id }
    }

    @Test func sameArrayIsResolvedOnceAndAChangedOneAgain() {
        let members = (0..<5).map { Member(UInt64($0)) }
        var audiences = Audiences<Member>()
        var lookups = 0
        let resolve: (UInt64) -> Member? = { id in
            lookups += 1
            return id < 5 ? members[Int(id)] : nil
        }
        var ids: [UInt64] = [0, 2, 4, 9]
        let first = audiences.members(for: ids, resolve: resolve).map { $0.takeUnretainedValue().id }
        #expect(first == [0, 2, 4])   // 9 is no member: skipped
        #expect(lookups == 4)
        let again = audiences.members(for: ids, resolve: resolve).map { $0.takeUnretainedValue().id }
        #expect(again == [0, 2, 4] && lookups == 4)
        // A change copies the cached storage first: a new array, resolved anew.
        ids.append(1)
        let changed = audiences.members(for: ids, resolve: resolve).map { $0.takeUnretainedValue().id }
        #expect(changed == [0, 2, 4, 1] && lookups == 9)
        // Equal contents in other storage are resolved too (storage, not contents, is the key).
        let copy = Array(ids.map { $0 })
        _ = audiences.members(for: copy, resolve: resolve)
        #expect(lookups == 14)
        audiences.removeAll()
        _ = audiences.members(for: ids, resolve: resolve)
        #expect(lookups == 19)
    }

    @Test func oldestAudienceMakesRoomPastCapacity() {
        let m = Member(1)
        var audiences = Audiences<Member>()
        var lookups = 0
        let lists = (0...Audiences<Member>.capacity).map { _ in [UInt64(1)] + [] }
        for l in lists { _ = audiences.members(for: l) { _ in lookups += 1; return m } }
        #expect(lookups == lists.count)
        // The last one is still known; the first made room for it.
        _ = audiences.members(for: lists[lists.count - 1]) { _ in lookups += 1; return m }
        #expect(lookups == lists.count)
        _ = audiences.members(for: lists[0]) { _ in lookups += 1; return m }
        #expect(lookups == lists.count + 1)
    }
}
