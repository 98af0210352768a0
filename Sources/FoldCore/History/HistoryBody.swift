/// `GET /api/boards/NAME/history` (an extension): its parameters and its
/// body, `{"board","epoch","rev","more","entries":[…]}`, entries oldest first.
public enum HistoryBody {
    /// Entries per page when `limit` is not given, and the most one may ask.
    public static let defaultLimit = 100
    public static let maxLimit = 1_000
    /// Bytes of entries one page carries at most (entries hold whole item lists):
    /// past it the page ends early and says `more`.
    public static let maxPageBytes = 4 << 20

    /// `since=REV`, `before=REV` (not both) and `limit=N`; anything else is a
    /// `bad_request` with what was wrong.
    public static func parameters(_ query: String) -> Result<HistoryQuery, WireError> {
        var anchor = HistoryQuery.Anchor.latest
        var limit = defaultLimit
        var seen: Set<String> = []
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(kv[0]), text = kv.count > 1 ? String(kv[1]) : ""
            guard ["since", "before", "limit"].contains(key) else {
                return .failure(WireError(.badRequest, "unknown parameter '\(key)' (expected since, before, limit)"))
            }
            guard seen.insert(key).inserted else { return .failure(WireError(.badRequest, "parameter '\(key)' given twice")) }
            guard let n = Int(text), n >= 0 else {
                return .failure(WireError(.badRequest, "parameter '\(key)' must be a non-negative integer, got '\(text)'"))
            }
            switch key {
            case "since": anchor = .since(n)
            case "before": anchor = .before(n)
            default:
                guard (1...maxLimit).contains(n) else {
                    return .failure(WireError(.badRequest, "limit must be 1...\(maxLimit), got \(n)"))
                }
                limit = n
            }
        }
        if seen.contains("since") && seen.contains("before") {
            return .failure(WireError(.badRequest, "give since or before, not both"))
        }
        return .success(HistoryQuery(anchor, limit: limit))
    }

    /// Keeps `limit` of `limit + 1` read entries: the oldest when reading
    /// forward from `since`, else the newest; `more` says one was left out.
    public static func page(_ read: [StoredChange], _ query: HistoryQuery) -> (entries: ArraySlice<StoredChange>, more: Bool) {
        let forward: Bool
        if case .since = query.anchor { forward = true } else { forward = false }
        var kept = read.count > query.limit ? (forward ? read.prefix(query.limit) : read.suffix(query.limit)) : read[...]
        var more = read.count > query.limit
        // Over the byte bound, drop from the far end (the newest going forward, the oldest going back); one entry always stays.
        var bytes = 0
        for (n, e) in (forward ? Array(kept) : kept.reversed()).enumerated() {
            bytes += size(of: e)
            if bytes > maxPageBytes && n > 0 {
                kept = forward ? kept.prefix(n) : kept.suffix(n)
                more = true
                break
            }
        }
        return (kept, more)
    }

    /// The bytes of an entry that count against `maxPageBytes`.
    public static func size(of e: StoredChange) -> Int {
        e.ops.count + (e.record.map { $0.action.count + $0.inverse.count + $0.summary.utf8.count } ?? 0)
    }

    public static func encode(board: String, epoch: String, rev: Int, more: Bool, entries: ArraySlice<StoredChange>) -> [UInt8] {
        wrap(board: board, epoch: epoch, rev: rev, more: more, entries: encodeEntries(entries))
    }

    /// The `entries` array alone: the costly part, encoded where the page is read.
    public static func encodeEntries(_ entries: ArraySlice<StoredChange>) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(entries.reduce(64) { $0 + size(of: $1) + 160 })
        for (i, e) in entries.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            encode(e, into: &out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The body around an encoded `entries` array.
    public static func wrap(board: String, epoch: String, rev: Int, more: Bool, entries: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count + board.utf8.count + 96)
        JSONWriter.appendRaw("{\"board\":", to: &out)
        JSONWriter.appendString(board, to: &out)
        JSONWriter.appendRaw(",\"epoch\":", to: &out)
        JSONWriter.appendString(epoch, to: &out)
        out += Array(",\"rev\":\(rev),\"more\":\(more),\"entries\":".utf8)
        out += entries
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{"rev","at","actor","session","summary","action","ops","inverse"}`;
    /// an entry written before history was kept has only `rev` and `ops`.
    static func encode(_ e: StoredChange, into out: inout [UInt8]) {
        out += Array("{\"rev\":\(e.rev)".utf8)
        if let r = e.record {
            out += Array(",\"at\":\(r.at),\"actor\":".utf8)
            JSONWriter.appendString(r.actor, to: &out)
            JSONWriter.appendRaw(",\"session\":", to: &out)
            JSONWriter.appendString(r.session, to: &out)
            JSONWriter.appendRaw(",\"summary\":", to: &out)
            JSONWriter.appendString(r.summary, to: &out)
            // Both written by this daemon as JSON: embedded as they are.
            JSONWriter.appendRaw(",\"action\":", to: &out)
            out += r.action
            JSONWriter.appendRaw(",\"inverse\":", to: &out)
            let inverse = FieldUndo.inverseBytes(stored: r.inverse, forward: e.ops)
            out += inverse.isEmpty ? Array("null".utf8) : inverse
        }
        JSONWriter.appendRaw(",\"ops\":", to: &out)
        out += e.ops.isEmpty ? Array("[]".utf8) : e.ops
        out.append(UInt8(ascii: "}"))
    }
}
