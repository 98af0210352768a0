/// What the receivers saw during one phase; reset at its start.
struct Counters {
    /// Patches of the measured window received by subscribers.
    var deliveries = 0
    /// Patches of earlier windows (warm-up, previous ramp step).
    var stale = 0
    /// Patches whose rev skipped ahead / did not advance, per connection.
    var gaps = 0
    var dups = 0
    /// Snapshots after the first on a connection.
    var resyncs = 0
    var acks = 0
    var errors = 0
    var presence = 0
    var otherMessages = 0
    var framesIn = 0
    var messagesIn = 0
    var bytesIn = 0
    var patchBytes = 0
    var patches = 0
    var closed = 0
    var firstDeliveryNs: UInt64 = 0
    var lastDeliveryNs: UInt64 = 0
}
