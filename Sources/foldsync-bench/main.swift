import FoldTransport
import FoldCore
import Glibc

// Parse at the edge, set up the boards, connect, measure, report.
let logger = Logger(level: .info, label: "bench") { line in
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func say(_ line: String, json: Bool) {
    // Progress goes to stderr when stdout carries the JSON summary.
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(json ? 2 : 1, $0.baseAddress, $0.count) }
}

let args = Array(CommandLine.arguments.dropFirst())
if args.contains("--help") || args.contains("-h") {
    say(BenchConfig.help, json: false)
    exit(0)
}
let config: BenchConfig
do {
    config = try BenchConfig.parse(args)
} catch {
    logger.error("\(error)")
    exit(2)
}

// Every connection is a descriptor; leave room for the epoll, the timer and stdio.
let limit = DescriptorLimit.raise()
let needed = config.connections + config.idle + 1 + 16
guard needed <= limit else {
    logger.error("\(config.connections) + \(config.idle) idle connections need about \(needed) file descriptors; the limit (RLIMIT_NOFILE, raised to its hard value) is \(limit). Lower --connections/--idle or raise the hard limit (ulimit -Hn, LimitNOFILE=).")
    exit(2)
}

let daemon = config.pid.map { ObservedProcess(pid: $0) } ?? ObservedProcess.find(listeningOn: config.allNodes[config.publisherNode ?? 0].port)
if daemon == nil { logger.info("daemon process not found on this machine: no CPU/RSS figures") }

// The boards, created on the publisher's daemon and seen by every other first.
// A plain broadcaster (the peer) has no boards to set up.
var boards: [(String, [UInt8])] = []
if config.writers > 0 {
    let sections = config.sharedBoard ? max(config.writers, 10) : 10
    boards = config.sharedBoard
        ? [(BenchConfig.sharedBoardName, BoardSetup.document(sections: sections, items: 0, single: true))]
        : (0..<config.writers).map { ("bench-w\($0)", BoardSetup.document(sections: sections, items: 0)) }
} else if config.wire == .foldsync {
    boards = [(config.board, BoardSetup.document(sections: config.sections, items: config.items))]
    if config.idle > 0 { boards.append((BenchConfig.idleBoard, BoardSetup.document(sections: 3, items: 0))) }
}
for (name, body) in boards {
    if let why = BoardSetup.putEverywhere(board: name, body: body, nodes: config.allNodes, home: config.publisherNode ?? 0) {
        logger.error("cannot create board '\(name)': \(why)")
        exit(1)
    }
}

let bench: Bench
do {
    bench = try Bench(config: config, logger: logger)
} catch {
    logger.error("\(error)")
    exit(1)
}

var report = Report()
report.client = config.client
report.connections = config.connections
report.idle = config.idle
report.protocolOffered = config.offer.joined(separator: ", ")
report.daemonPID = daemon?.pid
let setupCPU0 = daemon?.cpuSeconds()
let total = bench.peers.count
report.setupSeconds = bench.connectAll(timeoutSeconds: 60 + Double(total) / 200)
report.connectFailures = bench.failures + (total - bench.readyCount - bench.failures)
report.negotiated = bench.negotiated
if let a = setupCPU0, let b = daemon?.cpuSeconds() { report.daemonCPUSetupSeconds = b - a }
report.daemonRSSAfterSetupMiB = daemon?.memoryMiB()?.rss
say("set up \(bench.readyCount) connections in \(Report.f(report.setupSeconds)) s; negotiated \(report.negotiatedText)", json: config.json)
if config.writers > 0 {
    let open = bench.peers.count { $0.state == .open }
    guard open == config.writers else {
        logger.error("set-up failed: \(open) of \(config.writers) writers connected")
        exit(1)
    }
    let readers = config.historyReaders > 0
        ? HistoryReaders(count: config.historyReaders, limit: config.historyLimit, perSecond: 2, boards: boards.map(\.0), nodes: config.allNodes)
        : nil
    let w = bench.write(seconds: config.duration)
    let read = readers?.stop()
    let check = WriterCheck.run(bench)
    say(Report.writerLine(w, check, config: config, readers: read), json: config.json)
    if config.json { say(Report.writerJSON(w, check, config: config, readers: read), json: false) }
    exit(check.ok && w.errors == 0 && w.unanswered == 0 && (read?.failures ?? 0) == 0 ? 0 : 3)
}
guard bench.publisher.state == .open, bench.openSubscribers > 0 else {
    logger.error("set-up failed: \(bench.openSubscribers) subscribers, publisher \(bench.publisher.state)")
    exit(1)
}
// Let the presence announcements of the crowd that just joined go out first.
bench.drain(quietMs: 300, maxSeconds: 10)

if config.hold > 0 {
    // Quiet connections, as viewers sit between changes: pings and presence only.
    bench.run(until: { false }, deadlineNs: System.nowNs() + UInt64(config.hold * 1e9))
}

if config.ramp {
    bench.warmUp(rate: 50, seconds: max(config.warmup, 0.5))
    let (steps, best) = bench.ramp(daemon: daemon) { say(Report.stepLine($0), json: config.json) }
    report.steps = steps
    report.rampBest = best
} else {
    bench.warmUp(rate: config.rate, seconds: config.warmup)
    report.phase = bench.measure(rate: config.rate, seconds: config.duration, daemon: daemon)
}

report.ends = bench.failureReasons
say(config.json ? report.json : report.text, json: false)
let ok = report.phase.map { $0.complete } ?? (report.rampBest != nil)
exit(ok ? 0 : 3)
