import FoldConfig
import FoldHub
import FoundationEssentials

extension ConfigSources {
    /// Reads the file (the one piece of I/O), then builds the configuration.
    public func resolve() -> (DaemonConfig, [Problem]) {
        guard let file else { return resolve(.none) }
        if let text = try? String(contentsOfFile: file, encoding: .utf8) { return resolve(.text(text)) }
        // The default file may be absent; one that was named, or exists, must be readable.
        return resolve(fileExplicit || FileManager.default.fileExists(atPath: file) ? .unreadable : .none)
    }
}
