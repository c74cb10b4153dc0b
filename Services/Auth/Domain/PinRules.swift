import Contracts
import ServiceHTTP

/// What customer references, PINs and locations must look like.
enum PinRules {
    /// Alphanumeric (ASCII), 3 to 50 characters.
    static func validateReference(_ reference: String) throws {
        guard (3...50).contains(reference.utf8.count),
            reference.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else {
            throw ServiceError.validation("`customerRef` must be 3 to 50 letters or digits.")
        }
    }

    /// 4 to 8 ASCII digits.
    static func validatePin(_ pin: String, field: String) throws {
        guard (4...8).contains(pin.utf8.count), pin.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ServiceError.validation("`\(field)` must be 4 to 8 digits.")
        }
    }

    static func validate(_ location: GeoLocation?) throws {
        guard let location else { return }
        guard location.latitude.isFinite, location.longitude.isFinite, (-90...90).contains(location.latitude),
            (-180...180).contains(location.longitude)
        else {
            throw ServiceError.validation("`location` must have latitude in -90…90 and longitude in -180…180.")
        }
    }
}
