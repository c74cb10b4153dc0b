import Crypto
import Foundation
import ServiceHTTP

/// AWS Signature Version 4 for S3 requests (docs.aws.amazon.com, "Authenticating Requests:
/// Using the Authorization Header"), with the payload's SHA-256 in `x-amz-content-sha256`.
///
/// There is no AWS SDK among Pinhole's dependencies; signing is this much code, and a test
/// checks it against the example AWS publishes.
struct S3Signer: Sendable {
    let accessKeyID: String
    let secretAccessKey: String
    let region: String
    var service = "s3"

    /// SHA-256 of no bytes, the payload hash of GET, HEAD and DELETE.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256` and
    /// `Authorization`. `headers` are the other headers to sign (at least `host`), `path` the
    /// URI-encoded path, `query` the decoded query parameters.
    func sign(
        method: String, path: String, query: [(String, String)] = [], headers: [String: String],
        payloadHash: String, date: Date
    ) -> [String: String] {
        let (amzDate, day) = Self.stamps(date)
        var signed = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), Self.trim($0.value)) })
        signed["x-amz-date"] = amzDate
        signed["x-amz-content-sha256"] = payloadHash
        let names = signed.keys.sorted()
        let encoded: [(name: String, value: String)] = query.map { (Self.encode($0.0), Self.encode($0.1)) }
        let sorted = encoded.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        let canonicalQuery = sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
        let canonicalRequest = [
            method, path, canonicalQuery, names.map { "\($0):\(signed[$0]!)\n" }.joined(),
            names.joined(separator: ";"), payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, Hex.encode(SHA256.hash(data: Data(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        return [
            "x-amz-date": amzDate, "x-amz-content-sha256": payloadHash,
            "authorization":
                "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope),SignedHeaders=\(names.joined(separator: ";")),Signature=\(signature)",
        ]
    }

    /// `20130524T000000Z` and `20130524`, in UTC.
    static func stamps(_ date: Date) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let day = String(format: "%04d", parts.year ?? 0) + two(parts.month) + two(parts.day)
        return ("\(day)T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z", day)
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters (and `/` when
    /// encoding a path).
    static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            case UInt8(ascii: "/") where keepingSlash:
                out.append("/")
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    private static func trim(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
