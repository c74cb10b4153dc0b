import Contracts
import Foundation
import ServiceHTTP

/// A `POST /v1/posts` body checked: a photo at a place or a post of words, whichever it is,
/// with every rule that needs nothing but the body.
struct PostDraft: Sendable, Equatable {
    /// The words, trimmed (nil: none).
    var text: String?
    var linkURL: String?
    /// Every photo and video, in order (the first is the post's `mediaId`).
    var mediaIds: [String]
    var place: Coordinate?
    var replyTo: String?
    var quoteOf: String?

    static let maxTextLength = 500
    static let maxMedia = 4
    static let maxLinkLength = 2048

    init(_ body: CreatePostRequest) throws {
        if body.caption != nil, body.text != nil {
            throw ServiceError.validation("Send the words once: `text` or `caption`, not both.")
        }
        let words = (body.text ?? body.caption)?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let words, words.unicodeScalars.count > Self.maxTextLength {
            throw ServiceError.validation("`text` is at most \(Self.maxTextLength) characters.")
        }
        text = words?.isEmpty == true ? nil : words
        if body.mediaId != nil, body.mediaIds != nil {
            throw ServiceError.validation("Send `mediaIds` or a single `mediaId`, not both.")
        }
        let ids = body.mediaIds ?? body.mediaId.map { [$0] } ?? []
        guard ids.count <= Self.maxMedia else {
            throw ServiceError.validation("At most \(Self.maxMedia) photos or videos a post.")
        }
        mediaIds = try ids.enumerated().map { index, id in
            try ObjectID.field(id, body.mediaId != nil ? "mediaId" : "mediaIds[\(index)]")
        }
        guard Set(mediaIds).count == mediaIds.count else {
            throw ServiceError.validation("`mediaIds` names a photo twice.")
        }
        switch (body.latitude, body.longitude) {
        case (nil, nil): place = nil
        case (let latitude?, let longitude?): place = try Coordinate(latitude: latitude, longitude: longitude)
        default: throw ServiceError.validation("Send `latitude` and `longitude` together, or neither.")
        }
        linkURL = try body.linkURL.map(Self.link)
        replyTo = try body.replyTo.map { try ObjectID.field($0, "replyTo") }
        quoteOf = try body.quoteOf.map { try ObjectID.field($0, "quoteOf") }
        if replyTo != nil, quoteOf != nil {
            throw ServiceError.validation("A post answers (`replyTo`) or quotes (`quoteOf`), not both.")
        }
        guard text != nil || !mediaIds.isEmpty || quoteOf != nil else {
            throw ServiceError.validation("A post needs `text`, a photo or video, or a post it quotes.")
        }
    }

    /// A link as stored: an absolute `https` or `http` URL with a host and no user or password,
    /// at most 2,048 characters. It is shown, never fetched by the server.
    static func link(_ raw: String) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.unicodeScalars.count <= maxLinkLength, let url = URL(string: text),
            let scheme = url.scheme?.lowercased(),
            ["https", "http"].contains(scheme), let host = url.host(), !host.isEmpty, url.user() == nil,
            url.password() == nil
        else {
            throw ServiceError.validation("`linkURL` must be an http(s) URL with a host, at most 2048 characters.")
        }
        return text
    }

    /// The card a stored link shows, from the address alone; nil for none (or one that no
    /// longer reads as a URL).
    static func preview(of link: String?) -> LinkPreview? {
        guard let link, let url = URL(string: link), let host = url.host()?.lowercased(), !host.isEmpty else {
            return nil
        }
        let site = host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
        let path = url.path() == "/" ? "" : url.path()
        let full = site + path
        let display = full.count <= 40 ? full : String(full.prefix(39)) + "…"
        return LinkPreview(url: link, site: site, display: display, secure: url.scheme?.lowercased() == "https")
    }
}
