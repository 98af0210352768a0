/// The daemon's version, in hello and `--version`.
public enum DaemonVersion {
    public static let string = "0.1.0"
}
