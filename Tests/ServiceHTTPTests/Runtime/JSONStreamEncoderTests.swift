import Contracts
import Foundation
import NIOCore
import PropertyBased
import Testing

@testable import ServiceHTTP

/// The one-pass writer of every answer says what `JSONEncoder` with Pinhole's conventions says:
/// the same bytes wherever the order is the value's own (arrays, scalars, sorted dictionaries),
/// the same JSON value everywhere (objects' keys come in declaration order, not sorted).
@Suite struct JSONStreamEncoderTests {
    static func streamed(_ value: some Encodable) throws -> String {
        String(buffer: try JSONStreamEncoder.encode(value))
    }

    static func foundation(_ value: some Encodable) throws -> String {
        String(decoding: try JSONCoding.sharedEncoder.encode(value), as: UTF8.self)
    }

    /// Whether both write `value` as the same bytes (inside a property check, which may not throw).
    static func sameBytes(_ value: some Encodable) -> Bool {
        guard let streamed = try? streamed(value), let written = try? foundation(value) else { return false }
        return streamed == written
    }

    /// `json` parsed and written again with sorted keys: the same for the same JSON value.
    static func canonical(_ json: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    static func person(_ id: String, avatar: Bool) -> PersonView {
        PersonView(
            id: id, username: "user_\(id)", displayName: "Zoë \"Z\" O'Brien\n", avatar: avatar ? media("a-\(id)") : nil,
            relation: PersonRelation(following: true, followsYou: false, blocked: nil))
    }

    static func media(_ id: String) -> MediaView {
        MediaView(
            id: id, kind: .photo, status: .ready, width: 1080, height: 1350, aspectRatio: 0.8, durationMs: nil,
            placeholder: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
            thumbnailURL: "/v1/media/views/\(id)/thumbnail?exp=1&sig=a_b-c",
            displayURL: "/v1/media/views/\(id)/display?exp=1&sig=a_b-c",
            expiresAt: Date(timeIntervalSince1970: 1_796_454_000.5))
    }

    /// A page as the nearby list answers it, with every kind of field a post has set.
    static func page() -> Page<Post> {
        let posts = (0..<5).map { index in
            var post = Post(
                id: "p-\(index)", authorId: "u-\(index)", mediaId: "m-\(index)", caption: "café ☕️ \\ / \u{1}",
                latitude: 45.76 + Double(index) / 1000, longitude: 4.84, score: index - 2, upvotes: index,
                downvotes: 2, myVote: index.isMultiple(of: 2) ? nil : .up, distanceM: 1234.5678,
                createdAt: Date(timeIntervalSince1970: 1_764_000_000.25 + Double(index)), text: nil,
                linkURL: index == 1 ? "https://example.com/a?b=c" : nil,
                linkPreview: index == 1
                    ? LinkPreview(
                        url: "https://example.com/a?b=c", site: "example.com", display: "example.com/a", secure: true)
                    : nil,
                mediaIds: ["m-\(index)", "m2-\(index)"], replyTo: index == 2 ? "p-0" : nil,
                rootId: index == 2 ? "p-0" : nil,
                quoteOf: index == 3 ? "p-1" : nil, likeCount: 7, liked: true, deleted: index == 4 ? false : nil)
            post.author = person("u-\(index)", avatar: index != 0)
            post.media = [media("m-\(index)"), media("m2-\(index)")]
            post.replyToAuthor = index == 2 ? person("u-0", avatar: true) : nil
            return post
        }
        var withQuote = posts
        withQuote[3].quoted = QuotedPost(posts[1])
        return Page(items: withQuote, nextCursor: "eyJvZmZzZXQiOjIwfQ")
    }

    @Test func aPageWithViewsIsTheSameJSONAsJSONEncoderWrites() throws {
        let page = Self.page()
        let streamed = try Self.streamed(page)
        #expect(try Self.canonical(streamed) == Self.canonical(Self.foundation(page)))
        let decoded = try JSONCoding.decoder().decode(Page<Post>.self, from: Data(streamed.utf8))
        #expect(decoded.items == page.items && decoded.nextCursor == page.nextCursor)
        // Keys in the order the type declares them; absent optionals left out, not null.
        #expect(streamed.hasPrefix(#"{"items":[{"id":"p-0","authorId":"u-0","mediaId":"m-0","caption":"#))
        #expect(!streamed.contains("null"))
    }

    @Test func scalarsAndArraysAreTheSameBytes() async throws {
        // Any text: quotes, backslashes, slashes, control characters, any plane.
        // Two in three ASCII (where the escapes are), the rest anywhere.
        let scalar = Gen.int(in: 0...0x10FFFF).map { code in
            Character(Unicode.Scalar(UInt32(code % 3 == 0 ? code : code % 0x80)) ?? "\u{FFFD}")
        }
        await propertyCheck(count: 500, input: scalar.string(of: 0...40).array(of: 0...4)) { strings in
            #expect(Self.sameBytes(strings), "\(strings.map(\.unicodeScalars))")
        }
        await propertyCheck(
            count: 500, input: Gen.double(in: -1e300...1e300), Gen.double(in: -1000...1000), Gen.int(in: .min ... .max)
        ) { large, small, integer in
            let doubles: [Double] = [large, small, small.rounded(), Double(integer), 0, -0.0, 1e-7, 123_456_789_012]
            #expect(Self.sameBytes(doubles), "\(doubles)")
            #expect(Self.sameBytes([Float(small)]), "\(Float(small))")
            #expect(Self.sameBytes([integer, 0, .min, .max]))
            let wide = Wide(
                signed: Int64(integer), unsigned: integer.magnitude, small: Int8(truncatingIfNeeded: integer))
            #expect(Self.sameBytes([wide]), "\(wide)")
        }
        await propertyCheck(count: 500, input: Gen.int(in: -62_135_596_800_000...253_402_300_799_999)) { milliseconds in
            let dates = [Date(timeIntervalSince1970: Double(milliseconds) / 1000)]
            #expect(Self.sameBytes(dates), "\(milliseconds)")
        }
        let mixed: [String: [Int?]] = ["b": [1, nil], "a": [], "é": [3], "B": [nil]]
        #expect(try Self.streamed(mixed) == Self.foundation(mixed))
        #expect(try Self.streamed(Data([0, 255, 7])) == Self.foundation(Data([0, 255, 7])))
        #expect(
            try Self.streamed(URL(string: "https://example.com/a b"))
                == Self.foundation(URL(string: "https://example.com/a b")))
        #expect(try Self.streamed(Decimal(string: "12.5")!) == Self.foundation(Decimal(string: "12.5")!))
        #expect(try Self.streamed(true) == "true")
        #expect(try Self.streamed([[Bool]]([[], [false]])) == "[[],[false]]")
    }

    /// Integers of every width, in one key each (one key: the order cannot differ).
    struct Wide: Encodable {
        var signed: Int64
        var unsigned: UInt
        var small: Int8
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(signed)
            try container.encode(unsigned)
            try container.encode(small)
        }
    }

    /// A value that writes another's fields into its own object, then its own.
    struct Merged: Encodable {
        var inner = ["z": 1, "y": 2]
        var own = "own"
        enum CodingKeys: String, CodingKey { case own }
        func encode(to encoder: any Encoder) throws {
            try inner.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(own, forKey: .own)
        }
    }

    /// A value with a nested container: one pass cannot close it in turn, so JSONEncoder writes
    /// the whole answer.
    struct Nested: Encodable {
        enum CodingKeys: String, CodingKey { case outer, after }
        enum Inner: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var inner = container.nestedContainer(keyedBy: Inner.self, forKey: .outer)
            try inner.encode(1, forKey: .a)
            try container.encode("after", forKey: .after)
            try inner.encode(2, forKey: .b)
        }
    }

    struct Empty: Encodable {}

    @Test func whatOnePassCannotWriteIsWrittenByJSONEncoder() throws {
        #expect(try Self.canonical(Self.streamed(Merged())) == Self.canonical(Self.foundation(Merged())))
        #expect(try Self.streamed([Nested()]) == Self.foundation([Nested()]))
        #expect(try Self.streamed(["e": Empty()]) == #"{"e":{}}"#)
        #expect(throws: EncodingError.self) { try Self.streamed([1, Double.nan]) }
        #expect(throws: EncodingError.self) { try Self.streamed(["x": Double.infinity]) }
    }
}
