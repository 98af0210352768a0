import FoldCore

/// Counters for `/metrics`, kept by the hub.
public struct Metrics: Sendable {
    public var connectionsOpened = 0
    public var messagesReceived = 0
    public var changesApplied = 0
    public var framesQueued = 0
    public var bytesQueued = 0
    public var resyncs = 0
    public var resumes = 0
    public var slowClosed = 0
    public var commitFailures = 0
    /// Repeats of an accepted action's key, answered without applying them again.
    public var duplicateActions = 0
    public var httpRequests = 0
    public var refused: [String: Int] = [:]
    public var upgradesRefused: [String: Int] = [:]
    public var limitHits: [String: Int] = [:]
    public var authFailures = 0
    /// JWTs refused, by the check that failed (`JWTRefusal.Check`).
    public var jwtRefusals: [String: Int] = [:]
    /// Connections closed because their JWT expired.
    public var tokenExpiries = 0
    /// Event streams opened, and ended: by the daemon's close cause, or `reader`.
    public var streamsOpened = 0
    public var streamsEnded: [String: Int] = [:]
    public var authTimeouts = 0
    /// Boards read from the store on first use, let go once unused, and reads that failed.
    public var boardReads = 0
    public var boardsUnloaded = 0
    public var boardReadFailures = 0
    /// Commit latency histogram: upper bounds in seconds, and counts per bucket.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
    var buckets = [Int](repeating: 0, count: bounds.count)
    var commitCount = 0
    var commitSum = 0.0

    /// Requests a shared store committed, by how many times a batch holding
    /// each was refused first (another node had moved its board): upper
    /// bounds, and counts per bucket. A node that gets its turn after a
    /// refusal keeps these at 0 or 1.
    static let refusalBounds = [0, 1, 2, 4, 8]
    var refusalBuckets = [Int](repeating: 0, count: refusalBounds.count)
    var refusalCount = 0
    var refusalSum = 0

    mutating func observeRefusals(_ n: Int) {
        refusalCount += 1
        refusalSum += n
        if let i = Self.refusalBounds.firstIndex(where: { n <= $0 }) { refusalBuckets[i] += 1 }
    }

    mutating func observeCommit(_ seconds: Double) {
        commitCount += 1
        commitSum += seconds
        if let i = Self.bounds.firstIndex(where: { seconds <= $0 }) { buckets[i] += 1 }
    }
}

/// What the transport counts by itself, shown beside the hub's counters.
public struct TransportFigures: Sendable {
    public var incompleteHandshakes = 0
    /// WebSocket writes (one system call each unless the socket was full) and the messages they carried.
    public var writes = 0
    public var messagesWritten = 0
    /// Writes the socket took only part of (lws holds and sends the rest).
    public var shortWrites = 0
    /// The pacing: a write's measured cost (ns), the connections paced, and their gather (ns).
    public var writeCostNs = 0
    public var pacedConnections = 0
    public var gatherNs = 0
    /// WebSocket connections that ended, by cause (each once).
    public var closes: [CloseCause: Int] = [:]
    /// Connections refused for want of descriptors: a 503 at the upgrade,
    /// and sockets lws closed unanswered past its table.
    public var refusedAtDescriptorLimit = 0
    public var refusedPastDescriptorTable = 0

    public init(incompleteHandshakes: Int = 0, writes: Int = 0, messagesWritten: Int = 0,
                shortWrites: Int = 0, writeCostNs: Int = 0, pacedConnections: Int = 0, gatherNs: Int = 0,
                closes: [CloseCause: Int] = [:], refusedAtDescriptorLimit: Int = 0, refusedPastDescriptorTable: Int = 0) {
        self.writeCostNs = writeCostNs
        self.pacedConnections = pacedConnections
        self.gatherNs = gatherNs
        self.closes = closes
        self.refusedAtDescriptorLimit = refusedAtDescriptorLimit
        self.refusedPastDescriptorTable = refusedPastDescriptorTable
        self.incompleteHandshakes = incompleteHandshakes
        self.writes = writes
        self.messagesWritten = messagesWritten
        self.shortWrites = shortWrites
    }
}

/// What a shared store's threads know, shown beside the hub's counters:
/// connections made again after one broke, and where each board's row
/// stood when the follower last read them (for the catch-up lag).
public struct StoreFigures: Sendable {
    public var reconnects = 0
    public var heads: [String: BoardHead] = [:]

    public init(reconnects: Int = 0, heads: [String: BoardHead] = [:]) {
        self.reconnects = reconnects
        self.heads = heads
    }
}

/// A board's position in the shared store.
public struct BoardHead: Sendable, Equatable {
    public var epoch: String
    public var rev: Int
    public init(epoch: String, rev: Int) {
        self.epoch = epoch
        self.rev = rev
    }
}
