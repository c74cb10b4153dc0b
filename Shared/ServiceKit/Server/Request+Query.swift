import Hummingbird

extension Request {
    /// The query parameter `name` as a finite number; nil when it is absent. Anything else is
    /// a 400 naming the parameter.
    public func queryNumber(_ name: String) throws -> Double? {
        guard let text = uri.queryParameters[name[...]] else { return nil }
        guard let value = Double(String(text)), value.isFinite else {
            throw ServiceError.validation("`\(name)` must be a number.")
        }
        return value
    }

    /// The query parameter `name` as a finite number; absent, it is a 400 saying it is required.
    public func requiredQueryNumber(_ name: String) throws -> Double {
        guard let value = try queryNumber(name) else { throw ServiceError.validation("`\(name)` is required.") }
        return value
    }

    /// `?status=open|all` (default `open`): whether only open ones are asked for (incidents,
    /// duress alerts); anything else is a 400.
    public func openOnly() throws -> Bool {
        switch uri.queryParameters.get("status") ?? "open" {
        case "open": return true
        case "all": return false
        default: throw ServiceError.validation("`status` must be open or all.")
        }
    }
}
