import FoldCore
import FoldCrypto
import Foundation

/// Tokens for tests: secrets, and the `token = ...` lines that hold their hashes.
enum Tokens {
    static let reader = "reader-secret-1", folder = "folder-secret-2", editor = "editor-secret-3"
    static let admin = "admin-secret-4", ops = "ops-secret-5", late = "late-secret-6"

    static func hash(_ secret: String) -> String { OpenSSLDigest().hex(Array(secret.utf8)) }

    /// `NAME PERMS HASH [GLOB]` for `--token` or a `token =` line.
    static func spec(_ name: String, _ perms: String, _ secret: String, _ glob: String? = nil) -> String {
        "\(name) \(perms) \(hash(secret))" + (glob.map { " \($0)" } ?? "")
    }

    /// The five standard tokens as `--token` flags.
    static var flags: [String] {
        [spec("reader", "read", reader), spec("folder", "read,fold", folder), spec("editor", "read,fold,edit", editor),
         spec("admin", "read,fold,edit,admin", admin), spec("ops", "read,fold,edit,admin", ops, "ops-*")]
            .flatMap { ["--token", $0] }
    }

    static func bearer(_ secret: String) -> [(String, String)] { [("Authorization", "Bearer \(secret)")] }
}
