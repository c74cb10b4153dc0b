import Contracts
import Foundation
import GRDB
import ServiceHTTP

/// Builds what lists carry beside their ids: people (``PersonView``) and media (``MediaView``),
/// from the service's own copies (``ProfileMirror``, ``MediaMirror``) in the transaction that
/// reads the list, with URLs signed by `keys`. No call to another service per page.
///
/// Who may see a media object is the caller's to decide (the post, snap, clip or message that
/// shows it): ask only for media the reader may see. Media still held by screening shows its
/// URLs to its owner alone; media being processed or refused shows none.
public struct Views: Sendable {
    let keys: MediaURLKeyRing
    let clock: any WallClock

    public init(keys: MediaURLKeyRing, clock: any WallClock) {
        self.keys = keys
        self.clock = clock
    }

    /// The people of `ids`, by id. An account auth deleted shows as such; one the copy does not
    /// hold yet (its `profile.changed` still on the way) shows its id with no name.
    public func people(_ ids: some Sequence<String>, in db: Database) throws -> [String: PersonView] {
        let wanted = Set(ids)
        let profiles = try ProfileMirror.profiles(wanted, in: db)
        var people = try people(from: Array(profiles.values), in: db)
        for id in wanted where profiles[id] == nil {
            people[id] = PersonView(id: id, username: nil, displayName: "")
        }
        return people
    }

    /// `profiles` as people, by id, their avatars from the copy of media (auth, which owns the
    /// profiles, shows its own rows through here).
    public func people(from profiles: [ProfileMirrorRecord], in db: Database) throws -> [String: PersonView] {
        let avatars = try MediaMirror.media(profiles.compactMap(\.avatarMediaId), in: db)
        let signer = keys.current
        let expires = signer?.expiry(at: clock.now())
        var people: [String: PersonView] = [:]
        for profile in profiles {
            let id = profile.userId
            guard !profile.deleted else {
                people[id] = .deletedAccount(id)
                continue
            }
            // An avatar is public while it is one (and shows its URLs once screening let it through).
            let avatar = profile.avatarMediaId.flatMap { avatars[$0] }.map {
                Self.view(of: $0, viewer: nil, signer: signer, expires: expires)
            }
            var person = PersonView(
                id: id, username: profile.username, displayName: profile.displayName, avatar: avatar)
            person.avatarURL = UserSummary.avatarURL(mediaId: profile.avatarMediaId)
            people[id] = person
        }
        return people
    }

    /// One person (see ``people(_:in:)``).
    public func person(_ id: String, in db: Database) throws -> PersonView {
        try people([id], in: db)[id] ?? PersonView(id: id, username: nil, displayName: "")
    }

    /// The media of `ids` that the copy holds, by id, as `viewer` sees it.
    public func media(_ ids: some Sequence<String>, viewer: String?, in db: Database) throws -> [String: MediaView] {
        media(from: Array(try MediaMirror.media(Set(ids), in: db).values), viewer: viewer)
    }

    /// `records` as `viewer` sees them, by id (media, which owns them, shows its own rows
    /// through here).
    public func media(from records: [MediaMirrorRecord], viewer: String?) -> [String: MediaView] {
        let signer = keys.current
        let expires = signer?.expiry(at: clock.now())
        var views: [String: MediaView] = [:]
        for record in records {
            views[record.mediaId] = Self.view(of: record, viewer: viewer, signer: signer, expires: expires)
        }
        return views
    }

    /// `record` as a view for `viewer`, its URLs signed by `signer` until `expires`.
    static func view(
        of record: MediaMirrorRecord, viewer: String?, signer: MediaURLSigner?, expires: Int?
    ) -> MediaView {
        var view = MediaView(
            id: record.mediaId, kind: record.kind, status: record.status, width: record.width, height: record.height,
            aspectRatio: aspectRatio(record.width, record.height), durationMs: record.durationMs,
            placeholder: record.placeholder)
        let showsURLs = record.status == .ready || (record.status == .held && viewer == record.ownerId)
        guard showsURLs, let signer, let expires else { return view }
        let variants = record.variantSet
        func url(_ variant: MediaVariant) -> String? {
            variants.contains(variant) ? signer.url(record.mediaId, variant, expires: expires) : nil
        }
        view.thumbnailURL = url(.thumbnail)
        view.displayURL = url(.display)
        view.posterURL = url(.poster)
        view.playbackURL = url(.playback)
        view.expiresAt = Date(timeIntervalSince1970: TimeInterval(expires))
        return view
    }

    /// `width / height` to three decimals, when both are known.
    static func aspectRatio(_ width: Int?, _ height: Int?) -> Double? {
        guard let width, let height, width > 0, height > 0 else { return nil }
        return (Double(width) / Double(height) * 1000).rounded() / 1000
    }
}
