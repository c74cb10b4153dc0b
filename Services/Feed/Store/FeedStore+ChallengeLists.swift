import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Lists of challenges: mine by box, and those open for voting near a point or at a spot.
extension FeedStore {
    /// Which of `user`'s challenges a list shows.
    enum ChallengeBox: String, CaseIterable, Sendable {
        /// Challenges I was sent that are still before voting.
        case incoming
        /// Challenges I sent that are still before voting.
        case outgoing
        /// Mine, open for voting.
        case active
        /// Mine, finished (completed, expired, cancelled).
        case past

        var statuses: Set<ChallengeStatus> {
            switch self {
            case .incoming, .outgoing: ChallengeLifecycle.open.union([.bothReady])
            case .active: [.voting]
            case .past: ChallengeLifecycle.finished
            }
        }
    }

    /// A challenge with what its reader needs: clips, their own vote, and the participants and
    /// the clips they may play as views.
    struct ChallengeView: Sendable {
        var record: ChallengeRecord
        var clips: [ChallengeClipRecord]
        var myVote: String?
        var distance: Double?
        var people: [String: PersonView] = [:]
        var media: [String: MediaView] = [:]

        /// The challenge as `viewer` sees it.
        func challenge(for viewer: String) -> Challenge {
            record.contract(
                viewer: viewer, clips: clips, myVote: myVote, distance: distance, people: people, media: media)
        }
    }

    /// `user`'s challenges in `box`, newest first, after `position`: up to `limit + 1`.
    func challenges(
        of user: String, in box: ChallengeBox, after position: TimePosition?, limit: Int
    ) async throws -> [ChallengeView] {
        try await database.tracedRead { db in
            typealias Columns = ChallengeRecord.Columns
            let mine: QueryInterfaceRequest<ChallengeRecord> =
                switch box {
                case .incoming: ChallengeRecord.filter(Columns.opponentId == user)
                case .outgoing: ChallengeRecord.filter(Columns.creatorId == user)
                case .active, .past: ChallengeRecord.all().involving(user)
                }
            let records = try mine.filter(box.statuses.map(\.rawValue).contains(Columns.status))
                .newestFirst(after: position, limit: limit + 1).fetchAll(db)
            return try views(records, viewer: user, in: db)
        }
    }

    /// Challenges open for voting within `radius` metres of `center`, most recently opened
    /// first, that `viewer` may vote on (not theirs, no block with either participant).
    func votingChallenges(
        near center: Coordinate, radius: Double, viewer: String, after position: TimePosition?, limit: Int
    ) async throws -> [ChallengeView] {
        try await database.tracedRead { db in
            try Self.scan(.votingChallenges, center: center, radius: radius, after: position, limit: limit, in: db) {
                chunk in
                let distances = Dictionary(uniqueKeysWithValues: chunk.map { ($0.id, $0.distance) })
                let records = try Self.votable(ids: chunk.map(\.id), viewer: viewer, in: db)
                return try views(records, viewer: viewer, in: db).map { view in
                    var view = view
                    view.distance = distances[view.record.id]
                    return view
                }
            }
        }
    }

    /// Challenges open for voting at `spot` that `viewer` may vote on, most recently opened first.
    func votingChallenges(
        at spot: String, viewer: String, after position: TimePosition?, limit: Int
    ) async throws -> [ChallengeView] {
        try await database.tracedRead { db in
            var arguments: StatementArguments = ["spot": spot, "viewer": viewer, "limit": limit + 1]
            var after = ""
            if let position {
                after = "AND (c.voting_ms < :ms OR (c.voting_ms = :ms AND c.id < :id))"
                _ = arguments.append(contentsOf: ["ms": JSONCoding.milliseconds(position.createdAt), "id": position.id])
            }
            let records = try ChallengeRecord.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT c.* FROM challenge c INDEXED BY challenge_voting_by_spot
                        WHERE c.status = 'voting' AND c.spot_id = :spot \(after) AND \(Self.votableBy(":viewer"))
                        ORDER BY c.voting_ms DESC, c.id DESC LIMIT :limit
                        """), arguments: arguments)
            return try views(records, viewer: viewer, in: db)
        }
    }

    /// SQL: challenge `c` is not `viewer`'s and neither participant blocks or is blocked by them.
    private static func votableBy(_ viewer: String) -> String {
        """
        c.creator_id != \(viewer) AND c.opponent_id != \(viewer)
        AND \(BlockMirror.neitherBlocks(viewer, "c.creator_id")) AND \(BlockMirror.neitherBlocks(viewer, "c.opponent_id"))
        AND NOT EXISTS (SELECT 1 FROM challenge_clip h WHERE h.challenge_id = c.id AND h.hidden_at IS NOT NULL)
        """
    }

    /// Those of `ids` (challenges open for voting) `viewer` may vote on, in the order of `ids`.
    private static func votable(ids: [String], viewer: String, in db: Database) throws -> [ChallengeRecord] {
        let records = try ChallengeRecord.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT c.* FROM challenge c
                    WHERE c.id IN (SELECT value FROM json_each(:ids)) AND c.status = 'voting' AND \(votableBy(":viewer"))
                    """),
            arguments: ["viewer": viewer, "ids": JSONList.argument(ids)])
        let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) })
        return ids.compactMap { byID[$0] }
    }

    /// `records` with their clips and `viewer`'s votes, two reads for the whole list, and the
    /// participants and the clips `viewer` may play as views (from the service's copies).
    func views(
        _ records: [ChallengeRecord], viewer: String, in db: Database
    ) throws -> [ChallengeView] {
        let ids = records.map(\.id)
        let clips = Dictionary(
            grouping: try ChallengeClipRecord.filter(ids.contains(ChallengeClipRecord.Columns.challengeId)).fetchAll(
                db),
            by: \.challengeId)
        let votes = try ChallengeVoteRecord.filter(ids.contains(ChallengeVoteRecord.Columns.challengeId))
            .filter(ChallengeVoteRecord.Columns.voterId == viewer).fetchAll(db)
        let myVotes = Dictionary(uniqueKeysWithValues: votes.map { ($0.challengeId, $0.votedFor) })
        let playable = records.flatMap { record in
            (clips[record.id] ?? []).filter { record.shows($0, to: viewer) }.map(\.mediaId)
        }
        let people = try views.people(records.flatMap(\.participants), in: db)
        let media = try views.media(playable, viewer: viewer, in: db)
        return records.map {
            ChallengeView(
                record: $0, clips: clips[$0.id] ?? [], myVote: myVotes[$0.id], people: people, media: media)
        }
    }
}
