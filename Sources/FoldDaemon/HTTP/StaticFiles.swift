import FoldCore
import FoldTransport
import FoundationEssentials
import Glibc
import FoldHub

/// The dashboard's files, read from the web root and kept in memory with an
/// ETag. `/` and `/b/NAME` are the page itself; the page finds its board in
/// the URL. `/lib/NAME` is the JavaScript client library, from the `js`
/// folder beside the web root (a checkout's `clients/js`, the package's
/// `/usr/share/foldsync/js`): the dashboard imports it, and so may pages of
/// other origins (`allow-origin`). Every answer carries a strict
/// Content-Security-Policy (the page has no inline script or style).
final class StaticFiles {
    let root: String
    /// The root with symlinks resolved, once: served files must resolve inside it.
    let resolvedRoot: String?
    /// The library's folder, and resolved.
    let libRoot: String
    let resolvedLibRoot: String?
    let logger: Logger
    private var cache: [String: (mtime: Date, etag: String, body: [UInt8])] = [:]

    static let csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Whether the root holds the page; without it, dashboard paths get `missingPage`.
    let hasPage: Bool

    /// `executable` is the daemon's own path (for tests; by default /proc/self/exe).
    init(root: String, logger: Logger, executable: String? = StaticFiles.realPath("/proc/self/exe")) {
        let found = StaticFiles.locate(root, executable: executable) { FileManager.default.fileExists(atPath: $0 + "/index.html") }
        self.root = found.root
        self.resolvedRoot = StaticFiles.realPath(self.root)
        self.libRoot = StaticFiles.normalized(self.root + "/../js")
        self.resolvedLibRoot = StaticFiles.realPath(self.libRoot)
        self.logger = logger
        self.hasPage = FileManager.default.fileExists(atPath: self.root + "/index.html")
        if hasPage {
            logger.info("dashboard: serving \(self.resolvedRoot ?? self.root)")
        } else if !root.isEmpty {
            logger.warning("dashboard: no index.html in web-root \(root); / and /b/NAME answer a page saying so")
        } else {
            logger.warning("dashboard: no files found (looked in \(found.tried.joined(separator: ", "))); set web-root (--web-root DIR) to serve it")
        }
    }

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "png": "image/png", "svg": "image/svg+xml", "json": "application/json",
        "ico": "image/x-icon", "txt": "text/plain; charset=utf-8", "ts": "application/typescript; charset=utf-8",
    ]

    func serve(path: String, ifNoneMatch: String?) -> HTTPResponse {
        var file = path
        if file == "/" || file.hasPrefix("/b/") {
            guard hasPage else { return missingPage() }
            file = "/index.html"
        }
        let inLib = file.hasPrefix("/lib/")
        let name = String(file.dropFirst(inLib ? 5 : 1))
        guard !name.isEmpty, !name.split(separator: "/").contains(where: { $0 == ".." || $0.hasPrefix(".") }),
              let ext = name.split(separator: ".").last.map(String.init), let type = Self.types[ext] else {
            return notFound(path)
        }
        let full = (inLib ? libRoot : root) + "/" + name
        // A symlink may point anywhere: serve only what resolves inside the root.
        guard let resolved = Self.realPath(full), let base = inLib ? resolvedLibRoot : resolvedRoot, resolved.hasPrefix(base + "/") else {
            return notFound(path)
        }
        let key = inLib ? "/lib/" + name : name
        guard let attrs = try? FileManager.default.attributesOfItem(atPath: full),
              let mtime = attrs[.modificationDate] as? Date else { return notFound(path) }
        var entry = cache[key]
        if entry == nil || entry!.mtime != mtime {
            guard let data = FileManager.default.contents(atPath: full) else { return notFound(path) }
            let body = [UInt8](data)
            entry = (mtime, "\"\(Self.fnv(body))\"", body)
            cache[key] = entry
        }
        var headers = [("etag", entry!.etag), ("cache-control", "no-cache"), ("content-security-policy", Self.csp),
                       ("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer")]
        if inLib { headers.append(("vary", "origin")) }
        if ifNoneMatch == entry!.etag {
            return HTTPResponse(status: 304, contentType: type, headers: headers)
        }
        return HTTPResponse(status: 200, contentType: type, headers: headers, body: entry!.body)
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// The answer to a dashboard path when the root has no page: what to do about it.
    private func missingPage() -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>foldsync: no dashboard files</title></head>
            <body><h1>The dashboard's files are not here</h1>
            <p>foldsyncd found no <code>index.html</code> in <code>\(Self.htmlEscaped(root))</code>.</p>
            <p>Point it at the dashboard (the <code>clients/web</code> folder of a checkout, or
            <code>/usr/share/foldsync/web</code> where the package installs it) with
            <code>--web-root DIR</code>, or <code>web-root = DIR</code> in the configuration file (SIGHUP applies it).
            The WebSocket endpoint <code>/ws</code> and the HTTP API under <code>/api</code> work without it.</p>
            </body></html>

            """
        return HTTPResponse(status: 404, contentType: "text/html; charset=utf-8",
                            headers: [("content-security-policy", Self.csp), ("cache-control", "no-cache"), ("x-content-type-options", "nosniff")],
                            body: Array(html.utf8))
    }

    static func htmlEscaped(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }

    private func notFound(_ path: String) -> HTTPResponse {
        var r = HubResponse.error(.notFound, "nothing at \(path)")
        r.headers.append(("content-security-policy", Self.csp))
        return r
    }

    /// A content hash for the ETag (FNV-1a, 64 bits): cheap and stable.
    static func fnv(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(h, radix: 16)
    }
}
