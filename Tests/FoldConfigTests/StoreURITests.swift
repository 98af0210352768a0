import FoldConfig
import Testing

/// The store URI as logs and reports show it: never a password.
@Suite struct StoreURITests {
    @Test(arguments: [
        ("postgresql://foldsync@db:5432/boards", "postgresql://foldsync@db:5432/boards"),
        ("postgresql://foldsync:s3cret@db:5432/boards", "postgresql://foldsync:***@db:5432/boards"),
        ("postgres://u:p@ss/w@rd@db/boards?sslmode=require", "postgres://u:***@db/boards?sslmode=require"),
        ("postgresql://u@db/boards?password=s3cret&sslmode=require", "postgresql://u@db/boards?password=***&sslmode=require"),
        ("postgresql:///boards", "postgresql:///boards"),
    ])
    func passwordsAreRedacted(uri: String, shown: String) {
        #expect(StoreURI.redacted(uri) == shown)
    }

    @Test func theOptionTableShowsTheRedactedForm() {
        var c = DaemonConfig()
        #expect(OptionTable.find("store")?.apply(&c, "postgresql://u:s3cret@db/b") == nil)
        #expect(c.store == "postgresql://u:s3cret@db/b")
        #expect(OptionTable.find("store")?.show(c) == "postgresql://u:***@db/b")
        let refusal = OptionTable.find("store")?.apply(&c, "mysql://u:s3cret@db/b")
        #expect(refusal != nil)
        #expect(refusal?.contains("s3cret") == false)
    }

    @Test func theStoreIsNamedWithoutItsPassword() {
        var c = DaemonConfig()
        c.db = "/var/lib/foldsync/foldsync.db"
        #expect(c.storeName == "/var/lib/foldsync/foldsync.db" && !c.storeIsShared)
        c.store = "postgresql://fold:secret@db1:5432/boards"
        #expect(c.storeName == "postgresql://fold:***@db1:5432/boards" && c.storeIsShared)
    }
}
