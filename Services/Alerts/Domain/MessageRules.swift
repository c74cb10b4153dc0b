import Contracts
import Foundation
import ServiceHTTP

/// What a direct message may hold, and what its notification shows.
enum MessageRules {
    /// The longest text a message holds, in characters.
    static let maxTextLength = 2000
    /// How much of the text a notification (and a push) shows.
    static let previewLength = 100

    /// A draft's text (trimmed; nil when empty) and media id, or why it cannot be sent: it
    /// must hold text, a photo or video, or both.
    static func content(of draft: MessageDraft) throws -> (text: String?, mediaId: String?) {
        let text = draft.text?.trimmingCharacters(in: .whitespacesAndNewlines)
        let kept = text?.isEmpty == false ? text : nil
        if let kept, kept.unicodeScalars.count > maxTextLength {
            throw ServiceError.validation("`text` holds at most \(maxTextLength) characters.")
        }
        let media = try draft.mediaId.map { try ObjectID.field($0, "mediaId") }
        guard kept != nil || media != nil else {
            throw ServiceError.validation("A message needs `text`, a `mediaId`, or both.")
        }
        return (kept, media)
    }

    /// The notification's words for a message: its text, cut at ``previewLength``, or what
    /// kind of media it carries.
    static func preview(text: String?, contentType: String?) -> String {
        if let text {
            return text.count > previewLength ? String(text.prefix(previewLength - 1)) + "…" : text
        }
        return contentType?.hasPrefix("video/") == true ? "Sent a video" : "Sent a photo"
    }
}
