import Contracts
import Foundation
import GRDB
import ServiceStore
import Synchronization

extension ServiceHarness {
    /// Fills the service's copies of profiles and media (``ProfileMirror``, ``MediaMirror``)
    /// as auth's `profile.changed` and media's `media.described` would: `people` as they stand
    /// now, `media` with the variants its kind has once ready.
    public func mirror(
        people: [UserSummary] = [], media: [MediaSummary] = [], avatars: [String: String] = [:]
    )
        throws
    {
        try database().write { db in
            for person in people {
                try ProfileMirror.apply(
                    ProfileChanged(
                        userId: person.id, username: person.username, displayName: person.displayName,
                        avatarMediaId: avatars[person.id], revision: Self.nextRevision()),
                    in: db)
            }
            for item in media {
                try MediaMirror.apply(Self.described(item), in: db)
            }
        }
    }

    /// `user`'s account as deleted, in the service's copy of profiles.
    public func mirrorDeletion(of user: String) throws {
        _ = try database().write { db in
            try ProfileMirror.apply(
                ProfileChanged(
                    userId: user, username: nil, displayName: "", avatarMediaId: nil, deleted: true,
                    revision: Self.nextRevision()),
                in: db)
        }
    }

    /// What media would say of `item`: 1080×1350 photos, 1080×1920 videos.
    public static func described(_ item: MediaSummary) -> MediaDescribed {
        let video = item.contentType.hasPrefix("video/")
        let ready = item.status == .ready || item.status == .held
        let variants: [MediaVariant] =
            !ready ? [] : video ? [.thumbnail, .display, .poster, .playback] : [.thumbnail, .display]
        return MediaDescribed(
            mediaId: item.id, ownerId: item.ownerId, kind: video ? .video : .photo, status: item.status,
            width: 1080, height: video ? 1920 : 1350, durationMs: item.durationMs,
            placeholder: ready ? "LEHV6nWB2yk8pyo0adR*.7kCMdnj" : nil, variants: variants,
            revision: nextRevision())
    }

    /// Revisions that grow through a test run, so a later call always wins.
    static func nextRevision() -> Int { revisions.add(1, ordering: .relaxed).newValue }
    private static let revisions = Atomic<Int>(0)
}
