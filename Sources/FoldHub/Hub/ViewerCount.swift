/// A board's viewers on one node (or the other nodes together): subscribed
/// connections, and how many of them follow the board's view rather than browse.
public struct ViewerCount: Sendable, Equatable {
    public var viewers: Int
    public var following: Int

    public init(viewers: Int, following: Int) {
        self.viewers = viewers
        self.following = following
    }
}
