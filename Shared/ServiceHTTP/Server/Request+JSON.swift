import Contracts
import Foundation
import Hummingbird
import NIOCore

extension Request {
    /// Decodes a JSON body of at most `limit` bytes, turning every failure into a 4xx whose
    /// message names the field at fault (never the decoder's own text).
    public func decodeJSON<Value: Decodable>(
        as type: Value.Type, context: some RequestContext, limit: Int = 1 << 20
    ) async throws -> Value {
        var request = self
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw ServiceError(.payloadTooLarge, "The body is larger than \(limit) bytes.")
        }
        return try Self.decodeJSON(type, from: buffer)
    }

    /// Decodes JSON from a buffer with the same error mapping; also used for event bodies.
    public static func decodeJSON<Value: Decodable>(_ type: Value.Type, from buffer: ByteBuffer) throws -> Value {
        guard buffer.readableBytes > 0 else {
            throw ServiceError(.malformedRequest, "The request needs a JSON body.")
        }
        // What JSON (RFC 8259) does not allow and Foundation's decoder lets through: a byte
        // order mark, and raw control characters (a NUL, say) where only escapes may stand.
        let bytes = buffer.readableBytesView
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw ServiceError(.malformedRequest, "The body starts with a byte order mark: send JSON in plain UTF-8.")
        }
        if bytes.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            throw ServiceError(
                .malformedRequest, "The body holds a raw control character: inside a string, escape it (\\u0000).")
        }
        do {
            return try JSONCoding.sharedDecoder.decode(type, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw ServiceError(.malformedRequest, Self.describe(error))
        } catch {
            throw ServiceError(.malformedRequest, "The body is not valid JSON.")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey], appending key: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (key.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "Missing field `\(path(context.codingPath, appending: key))`."
        case .typeMismatch(_, let context):
            return "Field `\(path(context.codingPath))` has the wrong type."
        case .valueNotFound(_, let context):
            return "Field `\(path(context.codingPath))` must not be null."
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "The body is not valid JSON." }
            return "Field `\(path(context.codingPath))` has an invalid value."
        @unknown default:
            return "The body does not have the expected shape."
        }
    }
}

extension Response {
    /// A JSON response with Pinhole's encoding conventions, written in one pass
    /// (``JSONStreamEncoder``).
    public static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        json(encoded: try JSONStreamEncoder.encode(value), status: status)
    }

    /// A JSON response of a body already written (a hot answer written by hand).
    public static func json(encoded body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }
}
