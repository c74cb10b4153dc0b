import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `spot`. Its counters are kept in step with check-ins, challenges and ratings in
/// the transaction of each.
struct SpotRecord: ServiceRecord {
    static let databaseTableName = "spot"

    var id: String
    var creatorId: String
    var name: String
    var description: String
    var latitude: Double
    var longitude: Double
    var address: String?
    var difficulty: SpotDifficulty
    var checkInCount = 0
    var challengeCount = 0
    var ratingSum = 0
    var ratingCount = 0
    var createdAt: Date
    /// `createdAt` in milliseconds, the order of lists near a point.
    var createdMs: Int64
    var updatedAt: Date
    /// When moderation hid it from everyone but its creator (reports, or a moderator's removal).
    var hiddenAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id, difficulty
        case creatorId = "creator_id"
        case createdAt = "created_at"
        case hiddenAt = "hidden_at"
    }

    func point() throws -> Coordinate { try Coordinate(latitude: latitude, longitude: longitude) }

    func contract(
        tags: [String], images: [String], myRating: Int?, checkedIn: Bool, distance: Double? = nil
    ) -> Spot {
        Spot(
            id: id, name: name, description: description,
            location: SpotLocation(lat: latitude, lng: longitude, address: address), difficulty: difficulty, tags: tags,
            images: images,
            stats: SpotStats(
                checkInCount: checkInCount, challengeCount: challengeCount,
                rating: ratingCount == 0 ? 0 : (Double(ratingSum) / Double(ratingCount) * 100).rounded() / 100,
                ratingCount: ratingCount),
            createdBy: creatorId, myRating: myRating, checkedIn: checkedIn, distanceM: distance, createdAt: createdAt,
            updatedAt: updatedAt)
    }
}

extension SpotDifficulty: DatabaseValueConvertible {}
