import FoldCore
import FoldTestSupport
import Foundation
import Glibc

/// JWTs for the live tests, made by an implementation that is not ours:
/// PyJWT and cryptography in the test virtualenv (`.ci/run` makes it:
/// `.build/jwt-venv`, or `FOLDSYNC_JWT_PYTHON`), driven by Tests/jwt/mint.py.
/// A missing virtualenv fails the tests that need it.
enum JWTMint {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static var python: String {
        get throws {
            let env = ProcessInfo.processInfo.environment["FOLDSYNC_JWT_PYTHON"] ?? ""
            let path = env.isEmpty ? repo + "/.build/jwt-venv/bin/python" : env
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw HarnessError("no PyJWT virtualenv at \(path): python3 -m venv .build/jwt-venv && .build/jwt-venv/bin/pip install pyjwt cryptography (.ci/run does)")
            }
            return path
        }
    }

    /// Every key pair and secret the tests use, made once per test run.
    static let keyDirectory: Result<String, HarnessError> = {
        let dir = NSTemporaryDirectory() + "foldsync-jwt-\(getpid())"
        do {
            _ = try run(["keys", dir])
            return .success(dir)
        } catch {
            return .failure(HarnessError("making JWT keys: \(error)"))
        }
    }()

    static func key(_ name: String) throws -> String { try keyDirectory.get() + "/" + name }

    @discardableResult
    static func run(_ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try python)
        p.arguments = [repo + "/Tests/jwt/mint.py"] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("mint.py \(args.first ?? ""): \(problem)") }
        return text
    }

    /// One token request: `claims` is JSON text (or `raw` payload text).
    struct Spec {
        var alg: String
        var key: String
        var claims: String
        var headers: String = "{}"
        var raw = false
        var derSignature = false
        /// HS: the key file's bytes as the secret, whatever they are (a PEM public key: the confusion attack).
        var anyKey = false

        var json: String {
            "{\"alg\":\(Wire.q(alg)),\"key\":\(Wire.q(key)),\"headers\":\(headers),"
                + (raw ? "\"raw_claims\":\(Wire.q(claims))" : "\"claims\":\(claims)")
                + (derSignature ? ",\"der_signature\":true" : "") + (anyKey ? ",\"any_key\":true" : "") + "}"
        }
    }

    /// Signs every spec, in one run of Python.
    static func sign(_ specs: [Spec]) throws -> [String] {
        let lines = try run(["sign", "[" + specs.map(\.json).joined(separator: ",") + "]"]).split(separator: "\n").map(String.init)
        guard lines.count == specs.count else { throw HarnessError("mint.py signed \(lines.count) of \(specs.count)") }
        return lines
    }

    static func sign(_ spec: Spec) throws -> String { try sign([spec])[0] }

    /// Claims: `sub`, `exp` `life` seconds from now, the grants, and more members as JSON text.
    static func claims(_ sub: String, life: Double = 300, grants: String = #"{"*":["read","fold","edit","admin"]}"#, extra: String = "") -> String {
        "{\"sub\":\(Wire.q(sub)),\"exp\":\(Int(Date().timeIntervalSince1970 + life)),\"foldsync\":\(grants)\(extra.isEmpty ? "" : "," + extra)}"
    }
}
