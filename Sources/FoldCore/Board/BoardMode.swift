/// `single` is the accordion (at most one section expanded); `multi` leaves
/// each section independent.
public enum BoardMode: String, Sendable, CaseIterable {
    case single
    case multi
}
