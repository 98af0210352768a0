import CTerminal
import FoldClient
import Glibc

/// The controlling terminal in raw mode on the alternate screen. `enter`
/// saves the settings and `leave` puts back exactly what was there; a crash
/// signal restores them too (see `TerminalRescue`). Service thread.
final class Terminal {
    private var saved = termios()
    private(set) var active = false

    struct NotATerminal: Error {}

    func enter() throws(NotATerminal) {
        guard tcgetattr(0, &saved) == 0 else { throw NotATerminal() }
        var raw = saved
        cfmakeraw(&raw)
        // Keep output processing off too (cfmakeraw does): every line is placed
        // with an explicit cursor position, never with a newline.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(0, TCSANOW, &raw) == 0 else { throw NotATerminal() }
        active = true
        TerminalRescue.shared.arm(saved)
        // Alternate screen, cursor hidden, screen cleared.
        Output.out("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    func leave() {
        guard active else { return }
        active = false
        Output.out(TerminalRescue.restoreSequence)
        tcsetattr(0, TCSANOW, &saved)
        TerminalRescue.shared.disarm()
    }

    /// Rows and columns; 24x80 when the size is unknown.
    func size() -> (rows: Int, columns: Int) {
        var rows: Int32 = 0
        var cols: Int32 = 0
        guard fs_window_size(1, &rows, &cols) == 0, rows > 0, cols > 0 else { return (24, 80) }
        return (Int(rows), Int(cols))
    }

    /// Composes a whole frame off-screen and writes it in one `write`:
    /// every line placed by position, cut to the width by `Layout`, the
    /// rest of a short line cleared (never for a full one: erasing at the
    /// last column would eat its last character).
    func draw(_ lines: [ScreenLine], columns: Int, clear: Bool) {
        var out = clear ? "\u{1B}[2J" : ""
        for (i, l) in lines.enumerated() {
            out += "\u{1B}[\(i + 1);1H" + Self.sgr(l.style) + l.text
            if l.width < columns { out += "\u{1B}[K" }
            out += "\u{1B}[0m"
        }
        Output.out(out)
    }

    static func sgr(_ style: ScreenLine.Style) -> String {
        switch style {
        case .plain: return ""
        case .title: return "\u{1B}[1;7m"
        case .cursor: return "\u{1B}[7m"
        case .focus: return "\u{1B}[1;36m"
        case .status: return "\u{1B}[1;33m"
        case .help: return "\u{1B}[2m"
        }
    }
}

/// Puts the terminal back when the process dies of a signal we can catch
/// (SIGSEGV, SIGBUS, SIGILL and SIGTRAP from a Swift trap, SIGFPE, SIGABRT):
/// the handler only calls async-signal-safe functions (tcsetattr, write,
/// signal, raise) on memory set up beforehand, then dies of the same signal.
///
/// `@unchecked Sendable`: the saved settings are written once by `arm` on
/// the service thread before any handler is installed, and only read after.
final class TerminalRescue: @unchecked Sendable {
    static let shared = TerminalRescue()
    static let restoreSequence = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
    static let fatalSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT]
    let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    let sequence: UnsafeMutablePointer<UInt8>
    let sequenceLength: Int

    private init() {
        let bytes = Array(Self.restoreSequence.utf8)
        sequence = .allocate(capacity: bytes.count)
        sequence.initialize(from: bytes, count: bytes.count)
        sequenceLength = bytes.count
        saved.initialize(to: termios())
    }

    func arm(_ settings: termios) {
        saved.pointee = settings
        for sig in Self.fatalSignals {
            signal(sig) { sig in
                let r = TerminalRescue.shared
                _ = Glibc.write(1, r.sequence, r.sequenceLength)
                tcsetattr(0, TCSANOW, r.saved)
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }

    func disarm() {
        for sig in Self.fatalSignals { signal(sig, SIG_DFL) }
    }
}
