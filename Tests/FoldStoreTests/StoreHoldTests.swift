@testable import FoldStore
import FoldCore
import Foundation
import Glibc
import Testing

/// The hold on a SQLite store, in one process (a `flock` belongs to the
/// open file, so two opens conflict as two processes would): any path to the
/// file meets it, it names the holder's pid, and it goes when released.
@Suite struct SQLiteStoreHoldTests {
    @Test func aHoldIsMetThroughASymlinkAndGoesWhenReleased() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hold-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.db").path
        let link = dir.appendingPathComponent("link.db").path
        let store = try SQLiteStore(path: path, hold: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(SQLiteStoreHold.holder(of: link) == getpid())
        do {
            _ = try SQLiteStore(path: link, hold: true)
            Issue.record("a second hold was granted")
        } catch {
            #expect(error.heldElsewhere && error.description.contains("\(link) (\(path))") && error.description.contains("pid \(getpid())"), "\(error)")
        }
        // A store opened without a hold (a backup's, a reader's) is not refused.
        let reader = try SQLiteStore(path: link)
        reader.close()
        store.close()
        #expect(SQLiteStoreHold.holder(of: path) == nil)
        let next = try SQLiteStore(path: link, hold: true)
        next.close()
    }
}
