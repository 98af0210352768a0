import FoldTransport

/// One WebSocket connection of the benchmark. Owned by `Bench`, touched only
/// by its single thread.
final class Peer {
    enum Role { case subscriber, idle, publisher, writer }
    enum State { case connecting, handshaking, open, closed }

    let slot: Int
    let role: Role
    /// Which daemon it talks to: an index of `BenchConfig.allNodes`.
    let node: Int
    var fd: Int32 = -1
    /// The libwebsockets connection (`--client lws`); `fd` stays -1 then.
    var socket: ClientSocket?
    var state: State = .connecting
    /// The board this peer subscribes to (nil for the publisher).
    let board: String?

    /// Bytes not yet accepted by the socket, from `txOffset`.
    var tx: [UInt8] = []
    var txOffset = 0
    var wantsWrite = false

    /// The handshake response read so far.
    var handshake: [UInt8] = []
    /// An incomplete frame left over from the last read.
    var rxPending: [UInt8] = []
    /// A fragmented message being reassembled.
    var fragment: [UInt8] = []
    var inFragment = false

    /// Received its first snapshot: subscribed and counted as set up.
    var ready = false
    /// The rev of the last patch or snapshot (-1: none yet).
    var lastRev = -1
    /// Measured deliveries in the current phase.
    var deliveries = 0
    var mask: UInt32

    /// Writer mode: the board written, the next seq, and each action's send time by seq.
    var writeBoard = ""
    var writeSeq = 0
    var sentAt: [Int: UInt64] = [:]
    /// Writer mode: the revs acknowledged, and the seq of the title acknowledged at the highest rev.
    var ackedRevs: [Int] = []
    var titleAt: (rev: Int, seq: Int) = (-1, -1)

    init(slot: Int, role: Role, board: String?, node: Int = 0) {
        self.slot = slot
        self.role = role
        self.node = node
        self.board = board
        mask = UInt32(truncatingIfNeeded: slot &* 2_654_435_761 &+ 0x9E37_79B9)
    }

    var hasPendingOutput: Bool { txOffset < tx.count }
}
