import Contracts
import Foundation
import NIOHTTP1

/// How moderation finds an object: on its owner's ``ModerationSubjectsController``.
public struct ModerationSubjectLookup: Sendable {
    public let find: ModerationSubjectsController.Find

    public init(find: @escaping ModerationSubjectsController.Find) {
        self.find = find
    }

    /// The objects of these kinds and ids that exist, asked for all at once (one page of a
    /// queue), by id.
    public func findAll(_ targets: [(ReportTargetType, String)]) async throws -> [String: ModerationSubject] {
        try await withThrowingTaskGroup(of: ModerationSubject?.self) { group in
            for (type, id) in targets { group.addTask { try await find(type, id, nil) } }
            var found: [String: ModerationSubject] = [:]
            for try await subject in group { if let subject { found[subject.id] = subject } }
            return found
        }
    }

    /// Asks the owner of each kind over the internal client.
    public static func live(_ client: InternalClient) -> ModerationSubjectLookup {
        ModerationSubjectLookup { type, id, viewer in
            let response = try await client.send(
                .GET, to: type.owner, path: ModerationSubjectsController.path(type, id, viewer: viewer))
            return try Lookup<ModerationSubject>.interpret(response, from: type.owner)
        }
    }

    /// The objects of `subjects` (tests), each seen by everyone but those in `hiddenFrom`.
    public static func fixed(
        _ subjects: [ModerationSubject], hiddenFrom: [String: Set<String>] = [:]
    ) -> ModerationSubjectLookup {
        ModerationSubjectLookup { type, id, viewer in
            guard let subject = subjects.first(where: { $0.type == type && $0.id == id }) else { return nil }
            if let viewer, hiddenFrom[id]?.contains(viewer) == true { return nil }
            return subject
        }
    }
}
