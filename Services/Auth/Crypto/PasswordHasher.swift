import CArgon2
import Foundation
import NIOPosix
import ServiceHTTP

/// Argon2id cost parameters.
struct Argon2Parameters: Sendable, Equatable {
    var memoryKiB: UInt32
    var iterations: UInt32
    var parallelism: UInt32

    /// The prefix every hash made with these parameters starts with.
    var encodedPrefix: String { "$argon2id$v=19$m=\(memoryKiB),t=\(iterations),p=\(parallelism)$" }
}

/// Hashes and verifies secrets (passwords now, PINs later) with Argon2id through Debian's
/// libargon2.
///
/// Hashing takes tens of milliseconds by design, so it runs on NIO's blocking thread pool and
/// never on an event loop. Input is normalised to Unicode NFC and used whole: no truncation.
/// ``verifyUnknown(_:)`` does the same work against a fixed hash so that a login for an
/// address without an account takes as long as one with.
struct PasswordHasher: Sendable {
    let parameters: Argon2Parameters
    let entropy: any Entropy
    private let dummyHash: String

    static let saltLength = 16
    static let hashLength = 32

    init(parameters: Argon2Parameters, entropy: any Entropy) throws {
        self.parameters = parameters
        self.entropy = entropy
        self.dummyHash = try Self.hashNow(
            Array("pinhole-timing-equaliser".utf8), salt: entropy.bytes(Self.saltLength), parameters: parameters)
    }

    /// Hashes `secret` into the PHC string format (`$argon2id$v=19$m=...`).
    func hash(_ secret: String) async throws -> String {
        let bytes = Self.normalized(secret)
        let salt = entropy.bytes(Self.saltLength)
        let parameters = self.parameters
        return try await NIOThreadPool.singleton.runIfActive {
            try Self.hashNow(bytes, salt: salt, parameters: parameters)
        }
    }

    /// Whether `secret` matches `encoded`.
    func verify(_ secret: String, against encoded: String) async -> Bool {
        let bytes = Self.normalized(secret)
        return
            (try? await NIOThreadPool.singleton.runIfActive {
                Self.verifyNow(bytes, encoded: encoded)
            }) ?? false
    }

    /// The same work as ``verify(_:against:)`` for a caller with no stored hash; always false.
    func verifyUnknown(_ secret: String) async -> Bool {
        _ = await verify(secret, against: dummyHash)
        return false
    }

    /// Whether a stored hash was made with weaker or different parameters and should be
    /// replaced at the next successful sign-in.
    func needsRehash(_ encoded: String) -> Bool {
        !encoded.hasPrefix(parameters.encodedPrefix)
    }

    // MARK: - libargon2

    static func normalized(_ secret: String) -> [UInt8] {
        Array(secret.precomposedStringWithCanonicalMapping.utf8)
    }

    static func hashNow(_ secret: [UInt8], salt: [UInt8], parameters: Argon2Parameters) throws -> String {
        let length = argon2_encodedlen(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism, UInt32(salt.count),
            UInt32(hashLength), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let result = secret.withUnsafeBytes { secretBytes in
            salt.withUnsafeBytes { saltBytes in
                argon2id_hash_encoded(
                    parameters.iterations, parameters.memoryKiB, parameters.parallelism,
                    secretBytes.baseAddress, secretBytes.count, saltBytes.baseAddress, saltBytes.count,
                    hashLength, &encoded, length)
            }
        }
        guard result == ARGON2_OK.rawValue else {
            throw PasswordHashingError(code: result)
        }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func verifyNow(_ secret: [UInt8], encoded: String) -> Bool {
        secret.withUnsafeBytes { secretBytes in
            argon2id_verify(encoded, secretBytes.baseAddress, secretBytes.count) == ARGON2_OK.rawValue
        }
    }
}

struct PasswordHashingError: Error, CustomStringConvertible {
    let code: Int32
    var description: String { "argon2 failed: \(String(cString: argon2_error_message(code)))" }
}
