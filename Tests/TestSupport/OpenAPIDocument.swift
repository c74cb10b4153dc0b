import Foundation
import Yams

/// The public API description (`gateway/openapi.yaml`), read for tests: which operations it
/// lists, and whether a response body matches the schema it documents.
public struct OpenAPIDocument: @unchecked Sendable {
    let root: [String: Any]

    /// The repository's document.
    public static func load() throws -> OpenAPIDocument {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("gateway/openapi.yaml"), encoding: .utf8)
        guard let root = try Yams.load(yaml: text) as? [String: Any] else {
            throw DocumentError("openapi.yaml is not a mapping")
        }
        return OpenAPIDocument(root: root)
    }

    /// `info.version`: the release the document describes.
    public var version: String? { (root["info"] as? [String: Any])?["version"] as? String }

    var paths: [String: [String: Any]] {
        (root["paths"] as? [String: Any] ?? [:]).compactMapValues { $0 as? [String: Any] }
    }

    /// Every documented operation as `"GET /v1/me"`, with path parameters written `{name}`.
    public var operations: Set<String> {
        var result: Set<String> = []
        for (path, item) in paths {
            for method in item.keys where ["get", "put", "post", "patch", "delete", "head", "options"].contains(method)
            {
                result.insert("\(method.uppercased()) \(path)")
            }
        }
        return result
    }

    /// The documented schema of the JSON body answered by `method path` with `status`, or nil
    /// when the document has no JSON response for it.
    public func responseSchema(method: String, path: String, status: Int) -> [String: Any]? {
        guard let operation = operation(method: method, path: path),
            let responses = operation["responses"] as? [String: Any],
            var response = responses[String(status)] as? [String: Any]
        else { return nil }
        if let reference = response["$ref"] as? String, let resolved = resolve(reference) {
            response = resolved
        }
        let content = response["content"] as? [String: Any]
        let json = content?["application/json"] as? [String: Any]
        return json?["schema"] as? [String: Any]
    }

    /// Whether the document has an entry for this operation and status at all.
    public func documents(method: String, path: String, status: Int) -> Bool {
        guard let operation = operation(method: method, path: path),
            let responses = operation["responses"] as? [String: Any]
        else { return false }
        return responses[String(status)] != nil
    }

    /// Checks a response: documented status, and a body that matches the documented schema.
    /// Returns what is wrong, if anything.
    public func check(method: String, path: String, status: Int, body: Data) -> [String] {
        guard documents(method: method, path: path, status: status) else {
            return ["\(method) \(path) → \(status) is not documented"]
        }
        guard let schema = responseSchema(method: method, path: path, status: status) else { return [] }
        guard let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return ["\(method) \(path) → \(status): body is not JSON"]
        }
        return validate(value, against: schema, at: "\(method) \(path) → \(status)")
    }

    // MARK: - A small JSON Schema subset: $ref, type, enum, required, properties,
    // additionalProperties, items, minLength/maxLength, format date-time.

    public func resolve(_ reference: String) -> [String: Any]? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: Any = root
        for part in reference.dropFirst(2).split(separator: "/") {
            guard let next = (node as? [String: Any])?[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    func validate(_ value: Any, against schema: [String: Any], at location: String) -> [String] {
        if let reference = schema["$ref"] as? String {
            guard let resolved = resolve(reference) else { return ["\(location): unresolvable \(reference)"] }
            return validate(value, against: resolved, at: location)
        }
        var problems: [String] = []
        if let type = schema["type"] as? String, !Self.value(value, hasType: type) {
            return ["\(location): expected \(type), got \(Swift.type(of: value))"]
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { "\($0)" == "\(value)" }) {
            problems.append("\(location): \(value) is not one of \(options)")
        }
        if let text = value as? String {
            if let minimum = schema["minLength"] as? Int, text.count < minimum {
                problems.append("\(location): too short")
            }
            if let maximum = schema["maxLength"] as? Int, text.count > maximum {
                problems.append("\(location): too long")
            }
            if schema["format"] as? String == "date-time", (try? Date(text, strategy: .iso8601)) == nil,
                (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))) == nil
            {
                problems.append("\(location): \(text) is not a date-time")
            }
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(location): missing \(name)")
            }
            for (name, member) in object {
                if let property = properties[name] as? [String: Any] {
                    problems += validate(member, against: property, at: "\(location).\(name)")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    problems += validate(member, against: additional, at: "\(location).\(name)")
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(location): undocumented field \(name)")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() {
                problems += validate(element, against: items, at: "\(location)[\(index)]")
            }
        }
        return problems
    }

    static func value(_ value: Any, hasType type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        // Foundation hands JSON booleans over as a distinct NSNumber subclass.
        case "boolean": return "\(Swift.type(of: value))".contains("Boolean") || Swift.type(of: value) == Bool.self
        case "integer":
            guard let number = value as? NSNumber, !Self.value(value, hasType: "boolean") else { return false }
            return number.doubleValue == number.doubleValue.rounded()
        case "number": return value is NSNumber
        case "null": return value is NSNull
        default: return true
        }
    }

    /// The operation documented for `method path`. As OpenAPI says, a concrete path wins over
    /// a templated one (`/v1/notifications/unread-count` over `/v1/notifications/{id}`).
    func operation(method: String, path: String) -> [String: Any]? {
        paths.filter { Self.template($0.key, matches: path) }
            .sorted { $0.key.filter { $0 == "{" }.count < $1.key.filter { $0 == "{" }.count }
            .lazy.compactMap { $0.value[method.lowercased()] as? [String: Any] }.first
    }

    /// Whether a documented path (with `{name}` segments) matches a concrete path.
    public static func template(_ template: String, matches path: String) -> Bool {
        let path = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let left = template.split(separator: "/", omittingEmptySubsequences: false)
        let right = path.split(separator: "/", omittingEmptySubsequences: false)
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") || $0 == $1 }
    }

    struct DocumentError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
