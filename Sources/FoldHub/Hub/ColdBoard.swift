import FoldCore

/// A board in the store that is not in memory: where it stands, and the
/// keys of its keyed actions. The keys stay while the document goes: a
/// repeat of a key is answered and never applied again, whether or not the
/// board was read since (`Residency`).
struct ColdBoard {
    var epoch: String
    /// The rev of its last committed change.
    var rev: Int
    var keys = KeptKeys()
}
