/// What a token may do. `read`: subscribe and GET; `fold`: toggle, expand,
/// collapse, expandAll, collapseAll, focus, clearFocus; `edit`: every other action; `admin`:
/// PUT, DELETE and `replace`.
public struct Permission: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = Permission(rawValue: 1)
    public static let fold = Permission(rawValue: 2)
    public static let edit = Permission(rawValue: 4)
    public static let admin = Permission(rawValue: 8)
    public static let all: Permission = [.read, .fold, .edit, .admin]

    public static let names: [(String, Permission)] = [("read", .read), ("fold", .fold), ("edit", .edit), ("admin", .admin)]

    /// `read,fold`: nil when a name is unknown or the list is empty.
    public init?(list: String) {
        var p: Permission = []
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let (_, v) = Self.names.first(where: { $0.0 == part }) else { return nil }
            p.insert(v)
        }
        guard !p.isEmpty else { return nil }
        self = p
    }

    /// The permission an action needs (the table is `ActionName.permission`).
    public static func required(for action: Action) -> Permission { action.kind.permission }
}
