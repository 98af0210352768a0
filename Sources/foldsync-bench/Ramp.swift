extension Bench {
    /// The ramp: steps of rising rate until one fails, then one bisection
    /// between the last pass and the first failure. Connections stay open
    /// across steps; each step starts after the previous one's backlog drained.
    func ramp(daemon: ObservedProcess?, progress: (PhaseResult) -> Void) -> (steps: [PhaseResult], best: PhaseResult?) {
        let rates = config.rampRates
        var steps: [PhaseResult] = []
        var best: PhaseResult?
        var failed: PhaseResult?
        for rate in rates {
            let r = step(rate, daemon: daemon)
            steps.append(r)
            progress(r)
            if r.passes { best = r } else { failed = r; break }
            if openSubscribers == 0 { break }
        }
        if let f = failed, openSubscribers > 0 {
            let low = best?.rate ?? 0
            let mid = ((low + f.rate) / 2).rounded()
            if mid > low && mid < f.rate {
                let r = step(mid, daemon: daemon)
                steps.append(r)
                progress(r)
                if r.passes { best = r }
            }
        }
        return (steps, best)
    }

    private func step(_ rate: Double, daemon: ObservedProcess?) -> PhaseResult {
        let r = measure(rate: rate, seconds: config.step, daemon: daemon)
        drain(quietMs: 300, maxSeconds: 20)
        return r
    }
}
