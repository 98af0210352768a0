import FoldCore
import Foundation
import Testing
@testable import FoldDaemon

/// Where the dashboard is found without web-root, and what a dashboard path
/// answers when there are no files.
@Suite struct StaticFilesLocateTests {
    @Test func besideAnInstalledExecutable() {
        let found = StaticFiles.locate("", executable: "/usr/bin/foldsyncd") { $0 == "/usr/share/foldsync/web" }
        #expect(found.root == "/usr/share/foldsync/web")
        #expect(found.tried.first == "/usr/share/foldsync/web")
        let local = StaticFiles.locate("", executable: "/usr/local/bin/foldsyncd") { $0.hasPrefix("/usr/local/share") }
        #expect(local.root == "/usr/local/share/foldsync/web")
    }

    @Test func aBuildTreesClientsWeb() {
        let exe = "/src/foldsync/.build/static/x86_64-unknown-linux-gnu/release/foldsyncd"
        let found = StaticFiles.locate("", executable: exe) { $0 == "/src/foldsync/clients/web" }
        #expect(found.root == "/src/foldsync/clients/web")
    }

    @Test func aConfiguredRootIsTakenAsItIs() {
        let found = StaticFiles.locate("/srv/web", executable: "/usr/bin/foldsyncd") { _ in true }
        #expect(found.root == "/srv/web" && found.tried == ["/srv/web"])
    }

    @Test func nothingFoundListsWhereItLooked() {
        let found = StaticFiles.locate("", executable: "/opt/x/bin/foldsyncd") { _ in false }
        #expect(found.root == "clients/web")
        #expect(found.tried.contains("/opt/x/share/foldsync/web") && found.tried.contains("/usr/share/foldsync/web") && found.tried.contains("clients/web"))
        #expect(Set(found.tried).count == found.tried.count)
    }

    @Test func pathsAreNormalised() {
        #expect(StaticFiles.normalized("/usr/bin/../share/foldsync/web") == "/usr/share/foldsync/web")
        #expect(StaticFiles.normalized("a/./b/../c") == "a/c")
    }

    @Test func aDashboardPathWithoutFilesSaysHowToPointAtThem() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-noweb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let files = StaticFiles(root: empty.path, logger: Logger(level: .error, label: "test", sink: { _ in }))
        for path in ["/", "/b/ops"] {
            let r = files.serve(path: path, ifNoneMatch: nil)
            #expect(r.status == 404 && r.contentType.hasPrefix("text/html"), "\(path)")
            #expect(String(decoding: r.body, as: UTF8.self).contains("--web-root"), "\(path)")
        }
        #expect(files.serve(path: "/app.js", ifNoneMatch: nil).contentType == "application/json", "other paths keep the JSON error")
    }
}
