/// Reading a document someone already accepted: the store's (what was
/// accepted once stays readable, even if limits or item rules are stricter
/// now, or if it was written around the daemon) and the daemon's, in a
/// client (which must not refuse what a daemon with other limits sent).
/// Types are checked, rules and limits are not; a focus that points at no
/// item is dropped rather than refused, so a `Board` never holds one.
extension Board {
    public init(trusted json: JSON) throws(FoldError) {
        try self.init(shape: json, maxSections: .max)
        if !focusIsValid { focus = nil }
    }
}
