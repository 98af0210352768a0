import FoldCore

/// A library's board object, which performs actions (`act`): each named
/// action is `act` with the action built, written once here for every
/// library's board (`SyncBoard`, `BoardModel`).
public protocol BoardActions {
    /// Any action on this board; the rev of its `ack`.
    func act(_ action: Action, ifRev: Int?) async throws -> Int
}

extension BoardActions {
    @discardableResult public func toggle(_ section: String) async throws -> Int { try await act(.toggle(section: section), ifRev: nil) }
    @discardableResult public func expand(_ section: String) async throws -> Int { try await act(.expand(section: section), ifRev: nil) }
    @discardableResult public func collapse(_ section: String) async throws -> Int { try await act(.collapse(section: section), ifRev: nil) }
    @discardableResult public func expandAll() async throws -> Int { try await act(.expandAll, ifRev: nil) }
    @discardableResult public func collapseAll() async throws -> Int { try await act(.collapseAll, ifRev: nil) }
    @discardableResult public func focus(_ section: String, item: Int) async throws -> Int {
        try await act(.focus(section: section, item: item), ifRev: nil)
    }
    @discardableResult public func clearFocus() async throws -> Int { try await act(.clearFocus, ifRev: nil) }
    @discardableResult public func revert(_ rev: Int) async throws -> Int { try await act(.revert(rev: rev), ifRev: nil) }
}
