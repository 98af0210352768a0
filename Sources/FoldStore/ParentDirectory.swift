/// The directory part of a path, as `NSString.deletingLastPathComponent`
/// gives it: trailing slashes dropped, then everything before the last
/// slash ("/" for a file at the root, "" for a bare name: the caller's
/// working directory).
func parentDirectory(of path: String) -> String {
    var p = Substring(path)
    while p.count > 1, p.last == "/" { p = p.dropLast() }
    guard let slash = p.lastIndex(of: "/") else { return "" }
    if slash == p.startIndex { return "/" }
    var parent = p[..<slash]
    while parent.count > 1, parent.last == "/" { parent = parent.dropLast() }
    return String(parent)
}
