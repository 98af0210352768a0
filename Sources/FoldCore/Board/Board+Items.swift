/// The item rules (the typed-items extension). A wrong type is
/// `bad_request`, a broken rule (a link's scheme, an id, a duplicate id, a
/// size) is `invalid`; every message names the item and the field. Sizes are
/// the existing limits (`maxItemBytes` for the whole item, as before), plus
/// `Item.maxBadgeBytes`: a badge is short by definition.
/// Members outside `Item.fields` are kept as they are: clients may attach
/// their own data.
extension Board {
    static func checkItems(_ items: [JSON], limits: Limits) throws(FoldError) {
        guard items.count <= limits.maxItems else {
            throw FoldError(.invalid, "more than \(limits.maxItems) items")
        }
        var ids = Set<String>()
        for (n, item) in items.enumerated() {
            switch item {
            case .string:
                break
            case .object(let object):
                try checkFields(object, n, limits: limits, ids: &ids)
                guard item.depth <= limits.maxJSONDepth else {
                    throw FoldError(.invalid, "item \(n) nested deeper than \(limits.maxJSONDepth)")
                }
            default:
                throw FoldError(.badRequest, "item \(n) must be a string or an object with a string 'label'")
            }
            guard item.encodedByteCount(limit: limits.maxItemBytes) <= limits.maxItemBytes else {
                throw FoldError(.invalid, "item \(n) larger than \(limits.maxItemBytes) bytes")
            }
        }
    }

    private static func checkFields(_ object: JSONObject, _ n: Int, limits: Limits, ids: inout Set<String>) throws(FoldError) {
        func field(_ name: String) throws(FoldError) -> String? {
            guard let value = object[name] else { return nil }
            guard let s = value.stringValue else {
                throw FoldError(.badRequest, "field '\(name)' of item \(n) must be a string")
            }
            return s
        }
        guard try field("label") != nil else {
            throw FoldError(.badRequest, "field 'label' of item \(n) must be a string")
        }
        _ = try field("detail")
        if let href = try field("href"), !Link.isAllowed(href) {
            throw FoldError(.invalid, "field 'href' of item \(n) must be an http, https or mailto link")
        }
        if let badge = try field("badge"), badge.utf8.count > Item.maxBadgeBytes {
            throw FoldError(.invalid, "field 'badge' of item \(n) is longer than \(Item.maxBadgeBytes) bytes")
        }
        if let id = try field("id") {
            guard Names.isValid(id) else {
                throw FoldError(.invalid, "field 'id' of item \(n) must be 1-64 characters of [A-Za-z0-9_.-]")
            }
            guard ids.insert(id).inserted else {
                throw FoldError(.invalid, "field 'id' of item \(n): duplicate item id '\(id)'")
            }
        }
    }
}
