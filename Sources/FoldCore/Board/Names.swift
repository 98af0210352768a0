/// The one rule for board names and section ids: 1-64 characters of
/// `[A-Za-z0-9_.-]`, safe in URLs, file names and JSON Pointers unescaped.
public enum Names {
    public static let maxLength = 64

    public static func isValid(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard !utf8.isEmpty, utf8.count <= maxLength else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
