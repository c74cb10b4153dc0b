import Foundation
import Testing

@testable import ServiceHTTP

@Suite struct TraceParentTests {
    @Test func acceptsAValidHeaderAndKeepsItsTrace() throws {
        let parent = try #require(TraceParent(header: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        #expect(parent.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        let child = parent.child(entropy: SeededEntropy(seed: "t"))
        #expect(child.traceID == parent.traceID)
        #expect(child.parentID != parent.parentID)
        #expect(TraceParent(header: child.description) == child)
    }

    @Test(arguments: [
        "", "garbage", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
        "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\u{0}",
    ])
    func refusesMalformedHeaders(_ header: String) {
        #expect(TraceParent(header: header) == nil)
    }

    @Test func requestIDsFromClientsAreKeptOnlyWhenSafe() {
        #expect(RequestTracingMiddleware<ServiceRequestContext>.acceptableRequestID("abc-123_x.y") == "abc-123_x.y")
        #expect(RequestTracingMiddleware<ServiceRequestContext>.acceptableRequestID("bad id") == nil)
        #expect(RequestTracingMiddleware<ServiceRequestContext>.acceptableRequestID("x\ny") == nil)
        #expect(
            RequestTracingMiddleware<ServiceRequestContext>.acceptableRequestID(String(repeating: "a", count: 129))
                == nil)
    }
}

@Suite struct EncodingTests {
    @Test func base64URLMatchesFoundationWithoutPaddingForEveryLength() {
        let entropy = SeededEntropy(seed: "b64")
        for length in 0..<40 {
            let bytes = entropy.bytes(length)
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
            #expect(Base64URL.decode(expected) == Data(bytes))
        }
    }

    @Test func hexIsLowercaseTwoDigitsPerByte() {
        #expect(Hex.encode([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(Hex.encode([]) == "")
    }
}
