/// The release's version: the daemon's hello and `--version`, the terminal
/// client's `--version`, both man pages, and the Debian package's version
/// (`make deb` reads the literal below; keep it on one line).
public enum DaemonVersion {
    public static let string = "0.1.0"
}
