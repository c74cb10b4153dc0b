import Foundation
import ServiceHTTP

/// What a classifier says of one photo or video.
struct ScreeningVerdict: Sendable, Equatable {
    /// 0 (nothing wrong) to 1 (certainly against the rules).
    var score: Double
    var labels: [String]

    static let clear = ScreeningVerdict(score: 0, labels: [])
}

/// What a classifier looks at: the original's SHA-256 and type, and the 300×300 thumbnail
/// (a photo's, a video's poster frame's) when there is one.
struct ScreeningSample: Sendable {
    var mediaID: String
    var contentType: String
    var sha256: String
    var thumbnail: Data?
}

/// Anything that scores new media: the local rules by default, an operator's HTTP endpoint.
protocol ContentClassifier: Sendable {
    func classify(_ sample: ScreeningSample) async -> ScreeningVerdict
}

/// Screening of every new photo and video: a verdict at or above `holdThreshold` holds the
/// media (`held`, `media.held` to moderation) instead of publishing it.
struct Screening: Sendable {
    let classifier: any ContentClassifier
    let holdThreshold: Double

    /// The verdict that holds `sample`, or nil when it may be published.
    func hold(_ sample: ScreeningSample) async -> ScreeningVerdict? {
        let verdict = await classifier.classify(sample)
        return verdict.score >= holdThreshold ? verdict : nil
    }
}

/// The local rule set: a list of SHA-256 digests of files known to break the rules (one hex
/// digest a line, `#` comments), as operators get them from a hash-sharing programme. A match
/// scores 1 (`blocklisted`); anything else 0. Read once at start.
struct RuleClassifier: ContentClassifier {
    let blocked: Set<String>

    init(blocked: Set<String> = []) {
        self.blocked = blocked
    }

    init(file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        var blocked: Set<String> = []
        for line in text.split(whereSeparator: \.isNewline) {
            let digest = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces).lowercased()
            guard !digest.isEmpty else { continue }
            guard digest.count == 64, digest.allSatisfy(\.isHexDigit) else {
                throw ConfigurationError("media.screening.blocklistFile: \(digest.prefix(70)) is not a SHA-256 digest")
            }
            blocked.insert(digest)
        }
        self.blocked = blocked
    }

    func classify(_ sample: ScreeningSample) async -> ScreeningVerdict {
        blocked.contains(sample.sha256) ? ScreeningVerdict(score: 1, labels: ["blocklisted"]) : .clear
    }
}
