import Dispatch
import Glibc

/// Turns signals into inbox events: the default action is switched off and
/// a dispatch source posts the signal number instead.
final class SignalWatch {
    private var sources: [DispatchSourceSignal] = []

    init(_ signals: [Int32], inbox: Inbox) {
        // A parent may have started us with these blocked (the mask is
        // inherited): unblock them, or they would never arrive.
        var set = sigset_t()
        sigemptyset(&set)
        for sig in signals { sigaddset(&set, sig) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        // libdispatch installs its handler when it registers a source, on
        // its own thread, after resume(); until then SIG_IGN drops the
        // signal. Waiting for every registration (bounded) means a SIGTERM
        // sent once the client is up is never lost, however loaded the machine.
        let registered = DispatchSemaphore(value: 0)
        for sig in signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            // @Sendable: in main.swift's actor context the handler would
            // otherwise be inferred @MainActor and trap on the GCD thread.
            source.setEventHandler { @Sendable in inbox.post(.signal(sig)) }
            source.setRegistrationHandler { @Sendable in registered.signal() }
            source.resume()
            sources.append(source)
        }
        for _ in signals { _ = registered.wait(timeout: .now() + 5) }
    }
}
