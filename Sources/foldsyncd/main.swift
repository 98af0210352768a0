import FoldDaemon
import FoundationEssentials
import Glibc

// Thin by design: everything lives in FoldDaemon.
exit(Daemon.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
