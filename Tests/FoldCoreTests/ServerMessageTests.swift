import Testing
@testable import FoldCore

@Suite struct ServerMessageTests {
    @Test func exactBytes() {
        #expect(text(ServerMessage.hello(server: "foldsync/0.1", session: "c1"))
            == "{\"type\":\"hello\",\"protocol\":1,\"server\":\"foldsync/0.1\",\"session\":\"c1\"}")
        #expect(text(ServerMessage.snapshot(board: "default", epoch: "e", rev: 0, state: Array("{\"mode\":\"single\",\"sections\":[]}".utf8)))
            == "{\"type\":\"snapshot\",\"board\":\"default\",\"epoch\":\"e\",\"rev\":0,\"state\":{\"mode\":\"single\",\"sections\":[]}}")
        let ops = PatchOp.encode([.replace(path: "/mode", value: .string("multi"))])
        #expect(text(ServerMessage.patch(board: "b", epoch: "e", rev: 12, ops: ops, by: "c7"))
            == "{\"type\":\"patch\",\"board\":\"b\",\"epoch\":\"e\",\"rev\":12,\"ops\":[{\"op\":\"replace\",\"path\":\"/mode\",\"value\":\"multi\"}],\"by\":\"c7\"}")
        #expect(text(ServerMessage.patch(board: "b", epoch: "e", rev: 1, ops: Array("[]".utf8), by: nil))
            == "{\"type\":\"patch\",\"board\":\"b\",\"epoch\":\"e\",\"rev\":1,\"ops\":[]}")
        #expect(text(ServerMessage.ack(id: "9", board: "b", rev: 3)) == "{\"type\":\"ack\",\"id\":\"9\",\"board\":\"b\",\"rev\":3}")
        #expect(text(ServerMessage.ack(id: nil, board: "b", rev: 3)) == "{\"type\":\"ack\",\"id\":null,\"board\":\"b\",\"rev\":3}")
        #expect(text(ServerMessage.error(WireError(.notFound, "no section 'x'", id: "1", board: "b")))
            == "{\"type\":\"error\",\"code\":\"not_found\",\"message\":\"no section 'x'\",\"id\":\"1\",\"board\":\"b\"}")
        #expect(text(ServerMessage.error(WireError(.badRequest, "m"))) == "{\"type\":\"error\",\"code\":\"bad_request\",\"message\":\"m\"}")
        #expect(text(ServerMessage.presence(board: "b", viewers: 10_000, following: 9_999))
            == "{\"type\":\"presence\",\"board\":\"b\",\"viewers\":10000,\"following\":9999}")
    }

    @Test func messagesAreValidJSONWithoutNewlines() throws {
        let nasty = "a\nb\r\u{2028}\"\\"
        let messages = [
            ServerMessage.hello(server: nasty, session: nasty),
            ServerMessage.error(WireError(.invalid, nasty, id: nasty, board: "b")),
            ServerMessage.ack(id: nasty, board: "b", rev: 1),
            ServerMessage.patch(board: "b", epoch: nasty, rev: 2, ops: PatchOp.encode([.add(path: "/x", value: .string(nasty))]), by: nasty),
            ServerMessage.snapshot(board: "b", epoch: nasty, rev: 3, state: Board.initial.encoded()),
        ]
        for bytes in messages {
            #expect(!bytes.contains(0x0A))
            let json = try JSONParser.parse(bytes)
            #expect(json["type"]?.stringValue != nil)
        }
        #expect(try JSONParser.parse(messages[1])["message"] == .string(nasty))
    }
}
