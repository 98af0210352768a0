import FoldTestSupport
import Testing

/// The memory bounds of the live tests read VmRSS through this parser: it
/// must read every width the kernel prints, and say so when it cannot.
@Suite struct ResidentMemoryTests {
    @Test(arguments: [
        ("VmRSS:\t    5140 kB", 5140),
        ("VmRSS:\t12345678 kB", 12_345_678),
        ("VmRSS:\t123456789 kB", 123_456_789),
        ("VmRSS: 77 kB", 77),
        ("VmRSS:\t       0 kB", 0),
    ])
    func everyWidthIsRead(line: String, kb: Int) {
        let status = "Name:\tfoldsyncd\nVmHWM:\t  999999 kB\n\(line)\nRssAnon:\t    1 kB\n"
        #expect(DaemonProcess.residentKB(status: status) == kb)
    }

    @Test(arguments: ["Name:\tfoldsyncd\n", "VmRSS:\t kB\n", "VmRSS:\t12 MB\n", "VmRSS:\tlots kB\n", ""])
    func whatIsNotAFigureIsNil(status: String) {
        #expect(DaemonProcess.residentKB(status: status) == nil)
    }

    @Test func aLiveDaemonsFigureIsRead() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let kb = try d.residentKB()
        #expect(kb > 1024, "a Swift daemon holds more than 1 MB")
        d.kill9()
        _ = d.waitForExit(timeout: 10)
        #expect(throws: HarnessError.self) { _ = try d.residentKB() }
    }
}
