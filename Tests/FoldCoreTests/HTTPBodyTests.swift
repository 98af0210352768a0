import Testing
@testable import FoldCore

/// The HTTP API's bodies, byte for byte: these are the wire.
struct HTTPBodyTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func healthAndReadiness() {
        #expect(text(HTTPBody.health(writable: true, boards: 2, connections: 0))
                == #"{"status":"ok","writable":true,"boards":2,"connections":0}"#)
        #expect(text(HTTPBody.health(writable: false, boards: 0, connections: 17))
                == #"{"status":"ok","writable":false,"boards":0,"connections":17}"#)
        #expect(text(HTTPBody.ready(true)) == #"{"ready":true}"#)
        #expect(text(HTTPBody.ready(false)) == #"{"ready":false}"#)
    }

    @Test func boardListKeepsTheOrderGiven() {
        #expect(text(HTTPBody.boardList([])) == #"{"boards":[]}"#)
        let list = [HTTPBody.Listing(board: "b", epoch: "e1", rev: 3), HTTPBody.Listing(board: "a", epoch: "e2", rev: 0)]
        #expect(text(HTTPBody.boardList(list))
                == #"{"boards":[{"board":"b","epoch":"e1","rev":3},{"board":"a","epoch":"e2","rev":0}]}"#)
    }

    @Test func boardCarriesItsWholeDocument() throws {
        let body = HTTPBody.board(HTTPBody.Listing(board: "default", epoch: "ep", rev: 9), state: .initial)
        #expect(text(body) == #"{"board":"default","epoch":"ep","rev":9,"state":"# + text(Board.initial.encoded()) + "}")
        // And it parses back: the state is the board.
        let json = try JSONParser.parse(body)
        #expect(json.objectValue?["state"] == Board.initial.json)
    }

    @Test func writesAnswerWithTheirPosition() {
        #expect(text(HTTPBody.rev(0)) == #"{"rev":0}"#)
        #expect(text(HTTPBody.rev(1_234_567)) == #"{"rev":1234567}"#)
        #expect(text(HTTPBody.position(HTTPBody.Listing(board: "x.y", epoch: "e", rev: 4)))
                == #"{"board":"x.y","epoch":"e","rev":4}"#)
    }

    @Test func errorsAreTheContractsBody() throws {
        let body = HTTPBody.error(WireError(.notFound, #"no board "q" \ 分组"#))
        #expect(text(body) == #"{"code":"not_found","message":"no board \"q\" \\ 分组"}"#)
        let json = try JSONParser.parse(HTTPBody.error(WireError(.rateLimited, "slow down\n")))
        #expect(json.objectValue?["code"] == .string("rate_limited"))
        #expect(json.objectValue?["message"] == .string("slow down\n"))
    }
}
