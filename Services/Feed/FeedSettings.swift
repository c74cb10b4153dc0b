import Configuration
import Foundation
import ServiceHTTP

/// Feed's own settings.
///
/// Keys:
/// - `feed.nearby.maxRadiusM` (default 50000): the largest `radius_m` a nearby query accepts
///   (posts, and challenges open for voting).
/// - `feed.requireVerifiedPhone` (default false): only users with a verified phone number may
///   post; others get 403 `PHONE_VERIFICATION_REQUIRED`.
/// - `feed.requireAttestation` (default false): only sessions that made a valid App Attest
///   assertion (`POST /v1/me/attestation/assertions`) within `feed.attestationMaxAgeSeconds`
///   (default 300) may post; others get 403 `ATTESTATION_REQUIRED`.
/// - `feed.challenges.answerHours` (default 72): a challenge's deadline when its creator names
///   none; both clips must be ready by then or it expires.
/// - `feed.challenges.votingHours` (default 24): how long voting stays open once both clips are
///   ready; the result is computed at its end.
/// - `feed.challenges.perHour` (default 10): challenges a user may create an hour.
/// - `feed.spots.perDay` (default 5): spots a user may create a day.
/// - `feed.spots.checkInRadiusM` (default 200): how near a spot a check-in must be made.
/// - `feed.spots.nearbyRadiusM` (default 300): how near a spot a phone's geofence report
///   (`POST /v1/spots/nearby`) must be for `spot_nearby` to tell of it.
/// - `feed.spots.nearbyRepeatHours` (default 24): a spot told of is not told again to the same
///   user within this.
/// - `feed.spots.nearbyGapMinutes` (default 60): after telling a user of one spot, no other is
///   told to them within this (a skater rolling through a park hears of one spot, not ten).
/// - `feed.follows.perDay` (default 400): people a user may start following a day.
/// - `feed.housekeeping.intervalSeconds` (default 3600): how often timelines are trimmed and
///   old For You signals removed.
/// - `feed.timeline.maxRows` (default 1000): the rows each following feed keeps.
/// - `feed.signals.keepDays` (default 7): how long For You's signals are kept ("not interested"
///   is kept for good).
/// - `feed.map.rebuildSeconds` (default 5): how stale the map's clusters may be: the index is
///   rebuilt in the background at most this often, when posts changed.
struct FeedSettings: Sendable {
    let maxRadius: Int
    let requireVerifiedPhone: Bool
    /// How recent a session's App Attest assertion must be to post; nil: not required.
    let attestationMaxAge: TimeInterval?
    let challenges: Challenges
    let spots: Spots
    let follows: RatePolicy
    let housekeeping: Housekeeping
    let mapRebuildInterval: Int

    struct Housekeeping: Sendable {
        var interval: Int
        var timelineRows: Int
        var signalDays: Int
    }

    struct Spots: Sendable {
        var perDay: Int
        var checkInRadius: Double
        var nearby = Nearby(radius: 300, repeatAfter: 86_400, gap: 3_600)

        /// When `spot_nearby` tells of a spot.
        struct Nearby: Sendable {
            var radius: Double
            var repeatAfter: TimeInterval
            var gap: TimeInterval
        }

        var limit: RatePolicy { RatePolicy(name: "spots", limit: perDay, window: 86400) }
    }

    struct Challenges: Sendable {
        var answerTime: TimeInterval
        var votingTime: TimeInterval
        var perHour: Int

        var limit: RatePolicy { RatePolicy(name: "challenges", limit: perHour, window: 3600) }
    }

    init(reader: ConfigReader) throws {
        self.maxRadius = try reader.integer("feed.nearby.maxRadiusM", default: 50_000, in: 1...20_000_000)
        self.requireVerifiedPhone = try reader.boolean("feed.requireVerifiedPhone", default: false)
        let maxAge = TimeInterval(try reader.integer("feed.attestationMaxAgeSeconds", default: 300, in: 10...86_400))
        self.attestationMaxAge = try reader.boolean("feed.requireAttestation", default: false) ? maxAge : nil
        self.challenges = Challenges(
            answerTime: TimeInterval(
                try reader.integer("feed.challenges.answerHours", default: 72, in: 1...336) * 3600),
            votingTime: TimeInterval(
                try reader.integer("feed.challenges.votingHours", default: 24, in: 1...336) * 3600),
            perHour: try reader.integer("feed.challenges.perHour", default: 10, in: 1...100_000))
        self.spots = Spots(
            perDay: try reader.integer("feed.spots.perDay", default: 5, in: 1...100_000),
            checkInRadius: Double(try reader.integer("feed.spots.checkInRadiusM", default: 200, in: 10...10_000)),
            nearby: Spots.Nearby(
                radius: Double(try reader.integer("feed.spots.nearbyRadiusM", default: 300, in: 10...10_000)),
                repeatAfter: TimeInterval(
                    try reader.integer("feed.spots.nearbyRepeatHours", default: 24, in: 1...8_760) * 3600),
                gap: TimeInterval(try reader.integer("feed.spots.nearbyGapMinutes", default: 60, in: 0...10_080) * 60)))
        self.follows = RatePolicy(
            name: "follows", limit: try reader.integer("feed.follows.perDay", default: 400, in: 1...100_000),
            window: 86400)
        self.housekeeping = Housekeeping(
            interval: try reader.integer("feed.housekeeping.intervalSeconds", default: 3600, in: 1...604_800),
            timelineRows: try reader.integer("feed.timeline.maxRows", default: 1000, in: 100...1_000_000),
            signalDays: try reader.integer("feed.signals.keepDays", default: 7, in: 1...365))
        self.mapRebuildInterval = try reader.integer("feed.map.rebuildSeconds", default: 5, in: 1...3600)
    }
}
