import FoldCore
import FoldTestSupport
import Foundation

/// Receiving: frames are reassembled, pings answered, close frames recorded,
/// batch frames split on "\n".
extension TestSocket {
    /// The next text message, or nil when none came within `timeout` seconds
    /// or the connection closed (see `closeCode` and `eof`).
    func recvText(timeout: Double = TestSocket.defaultTimeout) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if try parseFrame() { continue }
            if closeCode != nil && inbound.isEmpty && eof { return nil }
            guard try fill(until: deadline) else { return nil }
        }
    }

    /// The next message, parsed; throws when none came in time.
    func recvJSON(timeout: Double = TestSocket.defaultTimeout) throws -> JSON {
        guard let text = try recvText(timeout: timeout) else {
            throw HarnessError("no message within \(timeout) s (close \(closeCode.map(String.init) ?? "none"), eof \(eof))")
        }
        return try JSONParser.parse(text, maxDepth: 512)
    }

    /// The next message of `type`, skipping others (presence, other boards' traffic).
    func waitFor(type: String, timeout: Double = TestSocket.defaultTimeout) throws -> JSON {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let m = try recvJSON(timeout: max(0.01, deadline.timeIntervalSinceNow))
            if m["type"]?.stringValue == type { return m }
        }
    }

    /// The next message that is not presence.
    func recvSkippingPresence(timeout: Double = TestSocket.defaultTimeout) throws -> JSON {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let m = try recvJSON(timeout: max(0.01, deadline.timeIntervalSinceNow))
            if m["type"]?.stringValue != "presence" { return m }
        }
    }

    /// Every message that arrives until `timeout` seconds pass quietly.
    func drain(quiet timeout: Double = 0.3) throws -> [JSON] {
        var out: [JSON] = []
        while let text = try recvText(timeout: timeout) { out.append(try JSONParser.parse(text, maxDepth: 512)) }
        return out
    }

    /// Waits until the daemon closes the connection; returns the close code (nil: dropped without one).
    func waitForClose(timeout: Double = TestSocket.defaultTimeout) throws -> UInt16? {
        let deadline = Date().addingTimeInterval(timeout)
        while !eof && Date() < deadline {
            _ = try recvText(timeout: max(0.01, deadline.timeIntervalSinceNow))
        }
        guard eof || closeCode != nil else { throw HarnessError("connection still open after \(timeout) s") }
        return closeCode
    }

    /// Parses one frame from `inbound`; false when it is incomplete.
    func parseFrame() throws -> Bool {
        guard inbound.count >= 2 else { return false }
        let b0 = inbound[0], b1 = inbound[1]
        let fin = b0 & 0x80 != 0
        let opcode = b0 & 0x0F
        guard b1 & 0x80 == 0 else { throw HarnessError("the server masked a frame") }
        var length = Int(b1 & 0x7F)
        var offset = 2
        if length == 126 {
            guard inbound.count >= 4 else { return false }
            length = Int(inbound[2]) << 8 | Int(inbound[3])
            offset = 4
        } else if length == 127 {
            guard inbound.count >= 10 else { return false }
            length = inbound[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard inbound.count >= offset + length else { return false }
        let payload = Array(inbound[offset..<(offset + length)])
        inbound.removeSubrange(..<(offset + length))
        switch opcode {
        case 0x0, 0x1:
            fragments += payload
            if fin {
                textFrames += 1
                let text = String(decoding: fragments, as: UTF8.self)
                fragments.removeAll()
                let parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if parts.count > 1 { batchFrames += 1 }
                pending += parts
            }
        case 0x8:
            if payload.count >= 2 {
                closeCode = UInt16(payload[0]) << 8 | UInt16(payload[1])
                closeReason = String(decoding: payload[2...], as: UTF8.self)
            } else {
                closeCode = 1005
            }
            try? sendRaw(Self.frame(opcode: 0x8, Array(payload.prefix(2))))
        case 0x9:
            try sendRaw(Self.frame(opcode: 0xA, payload))
        case 0xA:
            pongs.append(payload)
        default:
            throw HarnessError("unexpected opcode \(opcode) from the server")
        }
        return true
    }
}
