/// An item read for showing (the typed-items extension): a string is its
/// own label; an object gives `label` and, when present, `detail` (a second
/// line), `href` (a link), `badge` (a short tag) and `id` (a stable name).
///
/// Lenient on purpose: clients show what a daemon sent even when it was
/// stored before the rules (see `Board.checkItems`) or through a back door.
/// A field of the wrong type is dropped, a link that `Link` refuses is
/// dropped, and a value that is neither string nor object shows as its JSON.
public struct Item: Sendable, Equatable {
    public var label: String
    public var detail: String?
    public var href: String?
    public var badge: String?
    public var id: String?

    public init(label: String, detail: String? = nil, href: String? = nil, badge: String? = nil, id: String? = nil) {
        self.label = label
        self.detail = detail
        self.href = href
        self.badge = badge
        self.id = id
    }

    public init(_ json: JSON) {
        if let s = json.stringValue {
            self.init(label: s)
            return
        }
        guard let object = json.objectValue, let label = object["label"]?.stringValue else {
            self.init(label: String(decoding: json.encoded(), as: UTF8.self))
            return
        }
        self.init(label: label, detail: object["detail"]?.stringValue,
                  href: object["href"]?.stringValue.flatMap { Link.isAllowed($0) ? $0 : nil },
                  badge: object["badge"]?.stringValue, id: object["id"]?.stringValue)
    }

    /// The item as a board holds it: a bare string when only `label` is set.
    public var json: JSON {
        guard detail != nil || href != nil || badge != nil || id != nil else { return .string(label) }
        var fields: [(String, JSON)] = [("label", .string(label))]
        if let detail { fields.append(("detail", .string(detail))) }
        if let href { fields.append(("href", .string(href))) }
        if let badge { fields.append(("badge", .string(badge))) }
        if let id { fields.append(("id", .string(id))) }
        return .object(JSONObject(fields))
    }

    /// The members the extension gives a meaning to; others are kept as they are.
    public static let fields = ["label", "detail", "href", "badge", "id"]
    /// A badge is a short tag: at most this many UTF-8 bytes.
    public static let maxBadgeBytes = 64
}
