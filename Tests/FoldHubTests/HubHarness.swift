import FoldTestSupport
import FoldCore
import FoldCrypto
@testable import FoldHub

/// Drives a hub as the daemon would, with no process, socket or sleep: a
/// clock the test moves, a queue per connection, an in-memory store.
final class HubHarness {
    let hub: Hub
    let store = MemoryStore()
    var now: Instant = 1_000_000_000
    /// Every effect so far, in order.
    var effects: [HubEffect] = []
    /// What each connection has queued and not yet read.
    var queues: [UInt64: [[UInt8]]] = [:]
    var closes: [UInt64: (code: CloseCode, reason: String)] = [:]
    var responses: [UInt64: HubResponse] = [:]
    /// Events queued on each event stream, and the streams ended.
    var streamed: [UInt64: [[UInt8]]] = [:]
    var endedStreams: Set<UInt64> = []
    /// Batches handed to the store, not yet answered.
    var commits: [SealedBatch] = []
    var probes = 0
    /// sd_notify messages, in order.
    var notifications: [String] = []
    /// `catchUp` requests, as `board epoch after`.
    var catchUps: [String] = []
    /// `board viewers` for each `sharePresence`, in order.
    var shared: [String] = []
    /// Answer every commit at once (else the test calls `finishCommits`).
    var autoCommit = false
    /// Keep history reads until `finishReads` (else they are answered at once, from `store`).
    var holdReads = false
    var heldReads: [HistoryRead] = []
    /// Keep board reads until `finishBoardReads` (else answered at once, from `store`).
    var holdBoardReads = false
    var heldBoardReads: [String] = []
    /// Make the next board reads fail, as a store that cannot be read would.
    var boardReadFailure: String?

    /// `stored`: boards already in the store, not in memory (the daemon's
    /// start: only their catalog entries and keys are read).
    init(watchdogEvery: Double? = nil, statusEvery: Double? = nil, seed: UInt64 = 1, stored: [StoredBoard] = [], storedKeys: [StoredKey] = [],
         _ configure: (inout HubSettings) -> Void = { _ in }) {
        var settings = HubSettings()
        // As the daemon names its default store.
        settings.storeName = "./foldsync.db"
        configure(&settings)
        for b in stored { store.boards[b.name] = b }
        store.keys = storedKeys
        hub = Hub(settings: settings, logger: .silent, digest: OpenSSLDigest(),
                  boards: [BoardState(name: "default", epoch: "e0", rev: 0, board: .initial, changes: [], history: settings.retention.historyPerBoard)],
                  catalog: try! store.loadCatalog(), keys: Dictionary(grouping: storedKeys, by: \.board),
                  watchdogEvery: watchdogEvery, statusEvery: statusEvery, random: SplitMix64(seed: seed))
    }

    /// Feeds one input at the harness's time and carries out its effects.
    @discardableResult
    func feed(_ input: HubInput) -> [HubEffect] {
        let out = hub.handle(input, at: now)
        effects += out
        for e in out { perform(e) }
        return out
    }

    private func perform(_ e: HubEffect) {
        switch e {
        case .send(let ids, let frame):
            for id in ids where closes[id] == nil { queues[id, default: []].append(frame) }
        case .fanOut(let ids, let frame, _):
            let bound = hub.queueBound
            for id in ids where closes[id] == nil {
                let q = queues[id, default: []]
                if bound.admits(queuedFrames: q.count, queuedBytes: q.reduce(0) { $0 + $1.count }, adding: frame.count) {
                    queues[id, default: []].append(frame)
                } else {
                    feed(.overflowed(id: id, bytes: frame.count))
                }
            }
        case .resync(let id, let frames): queues[id] = frames
        case .close(let id, let code, let reason, _, _, _): closes[id] = (code, reason)
        case .commit(let batch):
            commits.append(batch)
            if autoCommit { finishCommits() }
        case .probe: probes += 1
        case .respond(let x, let r): responses[x] = r
        case .serveFile(let x, _, _), .serveMetrics(let x): responses[x] = HubResponse(status: 200)
        case .notify(let m): notifications.append(m)
        case .catchUp(let board, let epoch, let after): catchUps.append("\(board) \(epoch) \(after)")
        case .sharePresence(let board, let count): shared.append("\(board) \(count.viewers)")
        case .readHistory(let r):
            if holdReads { heldReads.append(r) } else { answer(r) }
        case .readBoard(let board, _):
            if holdBoardReads { heldBoardReads.append(board) } else { answerBoard(board) }
        case .openStream(let x): responses[x] = HubResponse(status: 200, contentType: "text/event-stream")
        case .streamSend(let ids, let event, _):
            for id in ids where !endedStreams.contains(id) { streamed[id, default: []].append(event) }
        case .streamResync(let id, let events): streamed[id] = events
        case .endStream(let id, _): endedStreams.insert(id)
        case .wakeAt, .stopAccepting, .stopServer: break
        }
    }

    /// As the reader would: from the store, what it committed.
    func answer(_ r: HistoryRead) {
        let result: Result<HistoryAnswer, StoreError>
        do throws(StoreError) { result = .success(try r.run(on: store)) } catch { result = .failure(error) }
        feed(.historyRead(id: r.id, result))
    }

    func finishReads() {
        while !heldReads.isEmpty { answer(heldReads.removeFirst()) }
    }

    /// As the reader would: the board as the store holds it, parsed.
    func answerBoard(_ board: String) {
        let read: Result<BoardRead?, StoreError>
        if let boardReadFailure {
            read = .failure(StoreError(boardReadFailure))
        } else {
            do throws(StoreError) { read = .success(try store.readBoard(board, history: hub.settings.retention.historyPerBoard)) } catch { read = .failure(error) }
        }
        feed(.boardRead(board: board, BoardLoad(read)))
    }

    func finishBoardReads() {
        while !heldBoardReads.isEmpty { answerBoard(heldBoardReads.removeFirst()) }
    }

    /// Commits what was handed over to the store and reports each outcome.
    func finishCommits(seconds: Double = 0.001) {
        while !commits.isEmpty {
            let batch = commits.removeFirst()
            do {
                try store.commit(batch.encoded())
                feed(.committed(.committed(batch: batch.id, seconds: seconds)))
            } catch {
                feed(.committed(.failed(batch: batch.id, reason: error.description)))
            }
        }
    }

    // MARK: a client's view

    func open(_ id: UInt64, peer: String = "10.0.0.1", headers: [String: String] = [:]) {
        feed(.opened(id: id, peer: peer, headers: headers, batching: false))
        _ = read(id)  // hello
    }

    func send(_ id: UInt64, _ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { feed(.received(id: id, message: UnsafeRawBufferPointer($0))) }
    }

    func subscribe(_ id: UInt64, board: String = "default", since: Position? = nil) {
        let s = since.map { #","since":{"epoch":"\#($0.epoch)","rev":\#($0.rev)}"# } ?? ""
        send(id, #"{"type":"subscribe","board":"\#(board)"\#(s)}"#)
    }

    func act(_ id: UInt64, _ type: ActionName, _ fields: String = "", tag: String? = nil) {
        let t = tag.map { #","id":"\#($0)""# } ?? ""
        send(id, #"{"type":"\#(type.rawValue)","board":"default"\#(t)\#(fields.isEmpty ? "" : "," + fields)}"#)
    }

    /// What the client has read since last time (its queue drains).
    func read(_ id: UInt64) -> [JSON] {
        defer { queues[id] = [] }
        return (queues[id] ?? []).map { try! JSONParser.parse($0) }
    }

    /// Moves the clock and delivers the tick the hub asked for.
    func advance(seconds: Double) {
        now += UInt64(seconds * 1e9)
        feed(.tick)
    }

    /// The wake-ups the hub asked for, in order.
    var wakes: [Instant] { effects.compactMap { if case .wakeAt(let t) = $0 { t } else { nil } } }
}

extension JSON {
    var type: String? { self["type"]?.stringValue }
    var rev: Int? { self["rev"]?.intValue }
    var code: String? { self["code"]?.stringValue }
}
