import Foundation

/// How hard a spot is, in skaters' words.
public enum SpotDifficulty: String, Codable, Sendable, CaseIterable {
    case beginner
    case intermediate
    case advanced
    case pro
}

/// Where a spot is: the seed's `location`.
public struct SpotLocation: Codable, Sendable, Equatable {
    public var lat: Double
    public var lng: Double
    public var address: String?

    public init(lat: Double, lng: Double, address: String? = nil) {
        self.lat = lat
        self.lng = lng
        self.address = address
    }
}

/// `POST /v1/spots`; `PATCH /v1/spots/{id}` takes the same fields, each optional. Feed decodes
/// it; tests make one with the memberwise initializer (`@testable import Contracts`).
public struct SpotInput: Codable, Sendable {
    /// 1–80 characters.
    public var name: String?
    /// Up to 1,000 characters.
    public var description: String?
    public var location: SpotLocation?
    public var difficulty: SpotDifficulty?
    /// Up to 10 tags of 1–30 letters, digits, `-` or `_` (stored lowercase).
    public var tags: [String]?
    /// Up to 5 of the creator's own photos (media ids), in order.
    public var images: [String]?

    public init(
        name: String? = nil, description: String? = nil, location: SpotLocation? = nil,
        difficulty: SpotDifficulty? = nil, tags: [String]? = nil, images: [String]? = nil
    ) {
        self.name = name
        self.description = description
        self.location = location
        self.difficulty = difficulty
        self.tags = tags
        self.images = images
    }
}

/// A spot's counters: the seed's `stats`.
public struct SpotStats: Codable, Sendable, Equatable {
    public var checkInCount: Int
    public var challengeCount: Int
    /// The mean of the ratings, 0 before the first.
    public var rating: Double
    public var ratingCount: Int

    public init(checkInCount: Int, challengeCount: Int, rating: Double, ratingCount: Int) {
        self.checkInCount = checkInCount
        self.challengeCount = challengeCount
        self.rating = rating
        self.ratingCount = ratingCount
    }
}

/// A spot, public to everyone signed in (but not across a block with its creator).
public struct Spot: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var description: String
    public var location: SpotLocation
    public var difficulty: SpotDifficulty
    public var tags: [String]
    /// Media ids of its photos, in order (`GET /v1/media/{id}/content`).
    public var images: [String]
    public var stats: SpotStats
    public var createdBy: String
    /// The reader's own rating, and whether they ever checked in here.
    public var myRating: Int?
    public var checkedIn: Bool
    /// Metres from the queried point (lists near a point only).
    public var distanceM: Double?
    public var createdAt: Date
    public var updatedAt: Date
    /// Who added it, as a view.
    public var creator: PersonView?
    /// The photos of `images` as views (size, placeholder, URLs that need no token), in order;
    /// the first is the cover.
    public var photos: [MediaView]?

    enum CodingKeys: String, CodingKey {
        case id, name, description, location, difficulty, tags, images, stats, createdBy, myRating, checkedIn
        case distanceM, createdAt, updatedAt, creator, photos
    }

    public init(
        id: String, name: String, description: String, location: SpotLocation, difficulty: SpotDifficulty,
        tags: [String], images: [String], stats: SpotStats, createdBy: String, myRating: Int?, checkedIn: Bool,
        distanceM: Double? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.location = location
        self.difficulty = difficulty
        self.tags = tags
        self.images = images
        self.stats = stats
        self.createdBy = createdBy
        self.myRating = myRating
        self.checkedIn = checkedIn
        self.distanceM = distanceM
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// `POST /v1/spots/{id}/check-ins`: where the caller is now.
public struct CheckInRequest: Codable, Sendable {
    public var lat: Double
    public var lng: Double

    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }
}

/// A check-in: `firstVisit` when it unlocked the spot for the caller.
public struct CheckIn: Codable, Sendable, Equatable {
    public var id: String
    public var spotId: String
    public var firstVisit: Bool
    public var distanceM: Double
    public var createdAt: Date

    public init(id: String, spotId: String, firstVisit: Bool, distanceM: Double, createdAt: Date) {
        self.id = id
        self.spotId = spotId
        self.firstVisit = firstVisit
        self.distanceM = distanceM
        self.createdAt = createdAt
    }
}

/// `PUT /v1/spots/{id}/rating`.
public struct SpotRatingRequest: Codable, Sendable {
    /// 1–5.
    public var stars: Int

    public init(stars: Int) {
        self.stars = stars
    }
}

/// `spot.nearby`: `userId`'s phone reported a place near the spot (SkateHubba's geofence
/// trigger; notification `spot_nearby`).
public struct SpotNearby: DomainEvent, Equatable {
    public static let eventType: EventType = "spot.nearby"
    public var spotId: String
    public var spotName: String
    public var userId: String
    public var distanceM: Int

    public init(spotId: String, spotName: String, userId: String, distanceM: Int) {
        self.spotId = spotId
        self.spotName = spotName
        self.userId = userId
        self.distanceM = distanceM
    }
}

/// `POST /v1/spots/nearby`: the nearest spot to the place reported, if any, and whether
/// the caller was told of it now (`spot_nearby`).
public struct SpotNearbyAnswer: Codable, Sendable, Equatable {
    public var spot: Spot?
    public var notified: Bool

    public init(spot: Spot?, notified: Bool) {
        self.spot = spot
        self.notified = notified
    }
}

/// `spot.unlocked`: `userId` checked in at the spot for the first time (activity `spot_unlocked`).
public struct SpotUnlocked: DomainEvent, Equatable {
    public static let eventType: EventType = "spot.unlocked"
    public var spotId: String
    public var spotName: String
    public var userId: String

    public init(spotId: String, spotName: String, userId: String) {
        self.spotId = spotId
        self.spotName = spotName
        self.userId = userId
    }
}
