/// Placeholder until the live view lands.
final class LiveView {
    let session: Session
    init(session: Session) { self.session = session }
    func run() -> Int32 {
        Output.fail("the live view is not built yet")
        return 1
    }
}
