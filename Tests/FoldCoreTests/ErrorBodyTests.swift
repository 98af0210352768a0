import FoldCore
import Testing

/// The one HTTP error body, and the close codes by name.
@Suite struct ErrorBodyTests {
    @Test func theBodyRoundTripsWhateverTheMessageHolds() throws {
        let message = #"origin "http://x" \ may not connect"#
        let json = try JSONParser.parse(ErrorBody.encode(code: "unavailable", message: message))
        #expect(json["code"]?.stringValue == "unavailable")
        #expect(json["message"]?.stringValue == message)
        #expect(ErrorBody.encode(WireError(.forbidden, "no")) == ErrorBody.encode(code: "forbidden", message: "no"))
    }

    @Test func closeCodesAreTheirRFC6455Numbers() {
        #expect([CloseCode.normal, .goingAway, .unsupportedData, .invalidPayload, .policyViolation, .messageTooBig, .internalError]
            .map(\.rawValue) == [1000, 1001, 1003, 1007, 1008, 1009, 1011])
        #expect(CloseCode(rawValue: 4001) == 4001, "a code we do not name is kept as it came")
        #expect(CloseCode.policyViolation.description == "1008")
    }
}
