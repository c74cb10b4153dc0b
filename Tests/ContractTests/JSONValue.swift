import Foundation

/// Any JSON value, compared structurally (key order and number spelling do not matter).
enum JSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    init(data: Data) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    func data() throws -> Data {
        try JSONEncoder().encode(self)
    }

    func member(_ key: String) throws -> JSONValue {
        guard case .object(let members) = self, let value = members[key] else {
            throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: [], debugDescription: "no \(key)"))
        }
        return value
    }

    func string(_ key: String) throws -> String {
        guard case .string(let text) = try member(key) else {
            throw DecodingError.typeMismatch(String.self, .init(codingPath: [], debugDescription: key))
        }
        return text
    }
}

extension JSONValue {
    /// This value with `error.requestId` taken out of an error envelope.
    var withoutRequestID: JSONValue {
        guard case .object(var fields) = self, case .object(var error)? = fields["error"] else { return self }
        error["requestId"] = nil
        fields["error"] = .object(error)
        return .object(fields)
    }
}
