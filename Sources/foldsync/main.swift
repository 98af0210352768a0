import FoundationEssentials
import Glibc

// Thin by design: everything lives in Main and the FoldClient target.
exit(Main.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
