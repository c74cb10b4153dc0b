import Contracts
import Foundation
import ServiceHTTP

/// What evidence must look like, and who may read it.
enum EvidenceRules {
    /// 1 to 100 letters, digits, `-` or `_`: the app's incident id, also part of the key.
    static func validateIncident(_ id: String) throws {
        guard (1...100).contains(id.utf8.count),
            id.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else { throw ServiceError.validation("`incidentId` must be 1 to 100 letters, digits, `-` or `_`.") }
    }

    /// A media type such as `video/mp4` (any kind: evidence may be audio or text), lowercased.
    static func contentType(_ raw: String) throws -> String {
        let type = raw.lowercased()
        guard type.split(separator: "/").count == 2, type.utf8.count <= 100,
            !type.contains(where: { $0.isWhitespace || $0 == ";" })
        else { throw ServiceError.validation("`contentType` must be a media type such as video/mp4.") }
        return type
    }

    /// Who may read evidence: a responder or admin of its tenant, or a deployment admin.
    static func isReadable(_ record: EvidenceRecord, by user: AuthenticatedUser) -> Bool {
        user.isStaff(of: record.tenantId)
    }

    static let immutable = ServiceError(.conflict, "Evidence cannot change once uploaded.")
}
