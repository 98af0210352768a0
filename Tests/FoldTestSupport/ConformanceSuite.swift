import Foundation

/// The shared conformance suites, written by others, read from beside the
/// repository (never copied into it): `$FOLDSYNC_CONFORMANCE_DIR` when set
/// (the `conformance` folder, or the suite's own folder), else the first
/// `shared/conformance/NAME` found walking up from the calling file. Nil
/// when missing, and the tests that need it then fail.
public enum ConformanceSuite {
    /// `name`: the suite's folder (`json-patch-tests`, `wycheproof`);
    /// `marker`: a file that must be in it.
    public static func directory(_ name: String, marker: String, filePath: String = #filePath) -> URL? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["FOLDSYNC_CONFORMANCE_DIR"], !env.isEmpty {
            // Set means authoritative: either the suite folder itself or its parent, else missing.
            let url = URL(fileURLWithPath: env)
            return [url.appendingPathComponent(name), url].first {
                fm.fileExists(atPath: $0.appendingPathComponent(marker).path)
            }
        }
        var dir = URL(fileURLWithPath: filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared/conformance/\(name)")
            if fm.fileExists(atPath: candidate.appendingPathComponent(marker).path) { return candidate }
            dir.deleteLastPathComponent()
        }
        return nil
    }
}
