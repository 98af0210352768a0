/// The slow-client bound: a fan-out frame is queued only while the
/// connection's queue is under both limits. Inlinable: the transport checks
/// it once per subscriber of every change.
public struct QueueBound: Sendable {
    public var frames: Int
    public var bytes: Int

    public init(frames: Int, bytes: Int) {
        self.frames = frames
        self.bytes = bytes
    }

    @inlinable
    public func admits(queuedFrames: Int, queuedBytes: Int, adding frameBytes: Int) -> Bool {
        queuedFrames < frames && queuedBytes + frameBytes <= bytes
    }
}
