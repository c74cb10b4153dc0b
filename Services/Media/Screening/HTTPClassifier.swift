import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceHTTP

/// An operator's classifier behind HTTP: `POST` JSON `{"mediaId", "contentType", "sha256",
/// "thumbnail"}` (the thumbnail as base64 JPEG, absent for a video without a poster), answered
/// `200 {"score": 0…1, "labels": [...]}`. A classifier that fails, times out or answers
/// anything else holds the media (`classifier_unavailable`): nothing is published unscreened.
struct HTTPClassifier: ContentClassifier {
    let url: String
    let timeout: TimeAmount
    let client: HTTPClient
    let logger: Logger

    struct Request: Encodable {
        var mediaId: String
        var contentType: String
        var sha256: String
        var thumbnail: String?
    }

    struct Answer: Decodable {
        var score: Double
        var labels: [String]?
    }

    static let unavailable = ScreeningVerdict(score: 1, labels: ["classifier_unavailable"])

    func classify(_ sample: ScreeningSample) async -> ScreeningVerdict {
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "content-type", value: "application/json")
            let body = Request(
                mediaId: sample.mediaID, contentType: sample.contentType, sha256: sample.sha256,
                thumbnail: sample.thumbnail?.base64EncodedString())
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
            let response = try await client.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: 64 << 10)
            guard response.status == .ok else {
                logger.warning("screening classifier answered \(response.status.code)")
                return Self.unavailable
            }
            let answer = try JSONDecoder().decode(Answer.self, from: Data(bytes.readableBytesView))
            guard answer.score.isFinite, (0...1).contains(answer.score) else {
                logger.warning("screening classifier gave a score outside 0…1")
                return Self.unavailable
            }
            return ScreeningVerdict(score: answer.score, labels: Array((answer.labels ?? []).prefix(20)))
        } catch {
            logger.warning("screening classifier failed", metadata: ["error": "\(error)"])
            return Self.unavailable
        }
    }
}
