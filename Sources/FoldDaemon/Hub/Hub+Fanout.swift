import FoldCore
import FoldTransport

extension Hub {
    /// Puts one shared frame on every subscriber's queue: encoded once,
    /// whatever the number of subscribers.
    func broadcast(_ frame: OutFrame, on board: String) {
        guard let subs = subscribers[board] else { return }
        for s in subs.values { deliver(frame, to: s) }
    }

    /// Queues a frame, unless the queue is at its bound: then the session is
    /// resynchronised (conflation) and the frame is covered by the snapshot.
    func deliver(_ frame: OutFrame, to s: Session) {
        let c = s.connection
        if c.queuedFrames >= config.maxQueueFrames || c.queuedBytes + frame.count > config.maxQueueBytes {
            resync(s)
            return
        }
        c.send(frame)
        metrics.framesQueued += 1
        metrics.bytesQueued += frame.count
    }

    /// Replaces what a slow session missed with fresh snapshots of its
    /// boards, and starts its stall clock.
    func resync(_ s: Session) {
        let c = s.connection
        c.discardQueued()
        metrics.resyncs += 1
        for name in s.subscriptions.sorted() {
            if let snap = boards[name]?.snapshot() { c.send(snap) }
        }
        if s.stalledSinceNs == nil {
            s.stalledSinceNs = Self.nowNs()
            stalled.insert(c.id)
            armStallTimer()
        }
    }

    /// Checks stalled sessions once a second, only while there are any.
    func armStallTimer() {
        guard !stallTimerArmed else { return }
        stallTimerArmed = true
        server.schedule(afterMicroseconds: 1_000_000) { [weak self] in
            guard let self else { return }
            self.stallTimerArmed = false
            let limit = UInt64(self.config.slowClientSeconds) * 1_000_000_000
            let now = Self.nowNs()
            for id in self.stalled {
                guard let s = self.sessions[id], let since = s.stalledSinceNs else {
                    self.stalled.remove(id)
                    continue
                }
                if now - since >= limit {
                    self.stalled.remove(id)
                    self.metrics.slowClosed += 1
                    self.logger.info("closing \(s.name): it has not read for \(self.config.slowClientSeconds)s")
                    s.connection.close(code: 1008, reason: "not reading; resync failed", flush: false, deadlineSeconds: 2)
                }
            }
            if !self.stalled.isEmpty { self.armStallTimer() }
        }
    }

    // MARK: presence

    func presenceChanged(_ board: String) {
        presenceDirty.insert(board)
        armPresenceTimer()
    }

    /// Presence goes out at most once per board per second, so a crowd
    /// joining costs one message per viewer per second, not one per join.
    func armPresenceTimer() {
        guard !presenceTimerArmed, !presenceDirty.isEmpty else { return }
        presenceTimerArmed = true
        server.schedule(afterMicroseconds: 200_000) { [weak self] in
            guard let self else { return }
            self.presenceTimerArmed = false
            let now = Self.nowNs()
            for name in self.presenceDirty {
                guard let b = self.boards[name] else {
                    self.presenceDirty.remove(name)
                    continue
                }
                guard now - b.lastPresenceNs >= 1_000_000_000 else { continue }
                self.presenceDirty.remove(name)
                let viewers = self.subscribers[name]?.count ?? 0
                b.lastPresenceNs = now
                self.broadcast(OutFrame(ServerMessage.presence(board: name, viewers: viewers)), on: name)
            }
            self.armPresenceTimer()
        }
    }
}
