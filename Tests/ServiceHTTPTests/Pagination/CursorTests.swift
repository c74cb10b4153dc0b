import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import ServiceHTTP

@Suite struct CursorTests {
    struct Position: Codable, Equatable, Sendable {
        var createdAt: Date
        var id: String
    }

    @Test func cursorsRoundTripTheirPosition() throws {
        let position = Position(createdAt: Date(timeIntervalSince1970: 1_800_000_000.25), id: "abc")
        let cursor = Cursor.encode(position)
        #expect(try Cursor.decode(Position.self, from: cursor) == position)
    }

    @Test(arguments: ["", "%%%", "eyJ0b28iOiJiYWQifQ", "A" + String(repeating: "B", count: 1100)])
    func alteredCursorsAreInvalidCursorErrors(_ cursor: String) {
        #expect {
            try Cursor.decode(Position.self, from: cursor)
        } throws: { error in
            (error as? ServiceError)?.code == .invalidCursor
        }
    }

    @Test func limitsAreBounded() throws {
        func page(_ query: String) throws -> PageRequest<Position> {
            try PageRequest(
                request: Request(
                    head: .init(method: .get, scheme: "http", authority: "x", path: "/items?\(query)"),
                    body: .init(buffer: .init())))
        }
        #expect(try page("").limit == 20)
        #expect(try page("limit=100").limit == 100)
        for bad in ["limit=0", "limit=101", "limit=abc", "limit=-1"] {
            #expect(throws: ServiceError.self) { try page(bad) }
        }
    }
}

@Suite struct BearerTokenTests {
    @Test func readsOneBearerToken() {
        #expect(
            AuthenticationMiddleware<ServiceRequestContext>.bearerToken(in: [.authorization: "Bearer abc.def"])
                == "abc.def")
        #expect(
            AuthenticationMiddleware<ServiceRequestContext>.bearerToken(in: [.authorization: "bearer  abc"]) == "abc")
        #expect(
            AuthenticationMiddleware<ServiceRequestContext>.bearerToken(in: [.authorization: "BEARER abc"]) == "abc")
    }

    @Test(arguments: ["Basic abc", "Bearer", "Bearer ", "Bearerabc", "Bearer a b", "Bearer a,b", "Token abc"])
    func refusesAnythingElse(_ value: String) {
        #expect(AuthenticationMiddleware<ServiceRequestContext>.bearerToken(in: [.authorization: value]) == nil)
    }

    @Test func refusesTwoAuthorizationHeaders() {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .authorization, value: "Bearer a"))
        headers.append(HTTPField(name: .authorization, value: "Bearer b"))
        #expect(AuthenticationMiddleware<ServiceRequestContext>.bearerToken(in: headers) == nil)
    }
}
