extension StringProtocol {
    /// Without leading and trailing spaces and tabs (what header values and
    /// configuration values may carry), and without Foundation.
    public var trimmingBlanks: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
