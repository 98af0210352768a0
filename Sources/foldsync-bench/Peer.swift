import FoldTransport

/// One WebSocket connection of the benchmark. Owned by `Bench`, touched only
/// by its single thread.
final class Peer {
    enum Role { case subscriber, idle, publisher }
    enum State { case connecting, handshaking, open, closed }

    let slot: Int
    let role: Role
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

    init(slot: Int, role: Role, board: String?) {
        self.slot = slot
        self.role = role
        self.board = board
        mask = UInt32(truncatingIfNeeded: slot &* 2_654_435_761 &+ 0x9E37_79B9)
    }

    var hasPendingOutput: Bool { txOffset < tx.count }
}
