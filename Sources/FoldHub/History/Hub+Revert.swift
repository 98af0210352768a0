import FoldCore

extension Hub {
    /// Later changes an undo may be carried over; one further back is refused.
    static let maxRevertDistance = 10_000

    /// `revert {board, rev}`: the change is read from the history first.
    func beginRevert(_ request: ActionRequest, rev: Int, reply: Reply, by: String?, actor: Author) {
        let name = request.board
        guard let b = boards[name], rev >= 1, rev <= b.headRev else {
            return answerJudged(reply, error: WireError(.notFound, "board '\(name)' has no change \(rev)", id: request.id, board: name), on: name)
        }
        guard b.headRev - rev <= Self.maxRevertDistance else {
            return answerJudged(reply, error: WireError(.invalid, "change \(rev) is more than \(Self.maxRevertDistance) changes back; it cannot be undone", id: request.id, board: name), on: name)
        }
        let query = HistoryQuery(.since(rev - 1), limit: Self.maxRevertDistance)
        guard startRead(.revert(request: request, rev: rev, reply: reply, by: by, actor: actor), board: name, query: query,
                        skeletons: true, committedTo: b.headRev) else {
            return answer(reply, error: WireError(.rateLimited, "too many history reads in progress; try again", id: request.id, board: name))
        }
    }

    /// The change and everything after it, read: check, carry its undo over
    /// the later changes, apply it on the head as a new change.
    func finishRevert(_ request: ActionRequest, rev: Int, read: [StoredChange], reply: Reply, by: String?, actor: Author) {
        let name = request.board
        // The guards are judged against the store's head (`answerJudged`); a refused one is the action again.
        currentIntent = .action(request, by: by, actor: actor)
        defer { currentIntent = nil }
        // A repeat that arrived while this one was reading gets its answer, not a second revert.
        if answeredByKey(request, on: boards[name], reply: reply) { return }
        func refuse(_ code: ErrorCode, _ message: String) { answerJudged(reply, error: WireError(code, message, id: request.id, board: name), on: name) }
        guard let entry = read.first, entry.rev == rev else {
            return refuse(.notFound, "change \(rev) is no longer in the history of '\(name)' (history-days \(settings.retention.historyDaysText), history-per-board \(settings.retention.historyPerBoard))")
        }
        guard let record = entry.record, let inverse = FieldUndo.inverse(stored: record.inverse, forward: entry.ops) else {
            return refuse(.invalid, "change \(rev) was stored without its undo (before history was kept); it cannot be reverted")
        }
        let undone = Self.undoneKind(record.action)
        let needed = undone?.permission ?? .admin
        if !settings.isOpen && !(actor.identity?.allows(needed, board: name) ?? false) {
            let who = actor.identity.map(\.describedAsActor) ?? "this connection (no valid token)"
            return refuse(.forbidden, "\(who) may not revert change \(rev) on '\(name)': it was a '\(undone?.rawValue ?? "?")', which needs \(Permission.names.first { $0.1 == needed }?.0 ?? "admin")")
        }
        if let fault = pipeline.fault {
            return answer(reply, error: WireError(.internal, "the store refuses writes (\(fault)); try again later", id: request.id, board: name))
        }
        guard let b = boards[name], let head = b.head else { return refuse(.notFound, "no board '\(name)'") }
        var later: [(rev: Int, ops: [PatchOp])] = []
        for c in read.dropFirst() {
            guard let ops = try? JSONPatch.decode(JSONParser.parse(c.ops, maxDepth: 512)) else { continue }
            later.append((c.rev, ops))
        }
        let carried: [PatchOp]
        switch ChangeTrace.rebase(inverse, over: later, on: head) {
        case .failure(let c):
            return refuse(.conflict, "change \(rev) cannot be undone: rev \(c.rev) changed \(c.path) since")
        case .success(let ops): carried = ops
        }
        let result: RevertResult
        do {
            result = try head.reverting(carried, limits: settings.limits)
        } catch {
            return answerJudged(reply, error: WireError(error, id: request.id, board: name), on: name)
        }
        switch result {
        case .conflict(let path):
            // Changes newer than the read (still being committed) stand in the way.
            refuse(.conflict, "change \(rev) cannot be undone: rev \(b.headRev) changed \(path) since")
        case .applied(let change):
            accept(change, on: b, reply: reply, by: by) { change in
                RecordSource(actor: actor.name, session: actor.session, action: request.action, before: head, change: change,
                             reverts: undone?.rawValue, reverted: record.summary)
            }
        }
    }

    /// The kind of action a recorded change undid last: a revert counts as
    /// the action it reverted (its `reverts`), so reverting it needs the same permission.
    static func undoneKind(_ action: [UInt8]) -> ActionName? {
        guard let json = try? JSONParser.parse(action, maxDepth: 64), let type = json["type"]?.stringValue,
              let kind = ActionName(rawValue: type) else { return nil }
        if kind == .revert { return json["reverts"]?.stringValue.flatMap(ActionName.init(rawValue:)) }
        return kind
    }
}
