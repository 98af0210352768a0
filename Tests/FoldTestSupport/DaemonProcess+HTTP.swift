import FoldCore
import Foundation

/// The daemon's HTTP side as the library suites drive it: curl, the
/// /metrics text, and the tokens they sign in with (a token file's SHA-256,
/// PyJWT's JWTs): the daemon is asked from outside the library under test.
extension DaemonProcess {
    /// One exchange by curl; the answer parsed as JSON (null for an empty body).
    public func curlJSON(_ method: String, _ path: String, body: String? = nil, token: String? = nil) throws -> JSON {
        var args = ["-s", "-X", method, "http://127.0.0.1:\(port)\(path)"]
        if let body { args += ["-H", "content-type: application/json", "-d", body] }
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        let answer = try curl(args)
        return answer.isEmpty ? .null : try JSONParser.parse(Array(answer.utf8), maxDepth: 512)
    }

    /// Metric `name` as /metrics gives it now; nil when it is not there.
    public func metricValue(_ name: String) throws -> Double? {
        for line in try curl(["-s", "http://127.0.0.1:\(port)/metrics"]).split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }
}

/// curl with `args`; what it printed.
public func curl(_ args: [String]) throws -> String {
    try runTool("/usr/bin/curl", args).stdout
}

/// The SHA-256 of `secret` in hex, by sha256sum: what a `--token` line holds.
public func sha256Hex(_ secret: String) throws -> String {
    try runTool("/bin/sh", ["-c", "printf %s \"$0\" | sha256sum | cut -d' ' -f1", secret]).stdout
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

/// JWTs signed by PyJWT (Tests/jwt/mint.py), not by the code under test.
public enum PyJWT {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// PyJWT's virtualenv (`make jwt-venv`), or `$FOLDSYNC_JWT_PYTHON`.
    public static func python() throws -> String {
        let env = ProcessInfo.processInfo.environment["FOLDSYNC_JWT_PYTHON"] ?? ""
        let path = env.isEmpty ? repo + "/.build/jwt-venv/bin/python" : env
        guard FileManager.default.isExecutableFile(atPath: path) else { throw HarnessError("no PyJWT virtualenv at \(path) (make jwt-venv)") }
        return path
    }

    /// An HS256 JWT for `subject` with read and fold on every board, `life` seconds long.
    public static func mint(python: String, secret: String, life: Int, subject: String) throws -> String {
        let claims = #"{"alg":"HS256","key":"\#(secret)","life":\#(life),"claims":{"sub":"\#(subject)","foldsync":{"*":["read","fold"]}}}"#
        let run = try runTool(python, [repo + "/Tests/jwt/mint.py", "sign", claims])
        guard run.status == 0 else { throw HarnessError("mint.py: \(run.stderr)") }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
