extension StaticFiles {
    /// Where the dashboard is when no web-root is configured: beside the
    /// executable first (a package's `/usr/bin` → `/usr/share/foldsync/web`,
    /// `/usr/local/bin` → `/usr/local/share/...`; a build tree's
    /// `.build/.../release` → the checkout's `clients/web`), then the fixed
    /// installed locations, then `clients/web` in the working directory.
    /// A configured root is used as it is. `tried` lists what was looked at.
    static func locate(_ configured: String, executable: String?, hasPage: (String) -> Bool) -> (root: String, tried: [String]) {
        if !configured.isEmpty { return (configured, [configured]) }
        var candidates: [String] = []
        if let executable, let slash = executable.lastIndex(of: "/") {
            var dir = String(executable[..<slash])
            candidates.append(dir + "/../share/foldsync/web")
            // The build tree: .build/release or .build/static/x86_64-unknown-linux-gnu/release, up to the checkout.
            for _ in 0..<5 {
                guard let up = dir.lastIndex(of: "/"), up > dir.startIndex else { break }
                dir = String(dir[..<up])
                candidates.append(dir + "/clients/web")
            }
        }
        candidates += ["/usr/share/foldsync/web", "/usr/local/share/foldsync/web", "clients/web"]
        var seen = Set<String>()
        candidates = candidates.map(normalized).filter { seen.insert($0).inserted }
        return (candidates.first(where: hasPage) ?? "clients/web", candidates)
    }

    /// `a/b/../c` → `a/c`, textually (the path may not exist).
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for p in path.split(separator: "/", omittingEmptySubsequences: true) {
            if p == "." { continue }
            if p == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(p) }
        }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }
}
