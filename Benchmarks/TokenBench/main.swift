import Foundation
import JWTKit
import ServiceHTTP

// Signs and verifies access tokens with EdDSA (Ed25519) and ES256 (P-256) through jwt-kit,
// the library Pinhole uses, and prints the cost of each. Run in release:
//   swift run -c release token-bench [iterations]
// The payload is Pinhole's own access-token claims type, so size and decoding are real.

func measure(_ label: String, iterations: Int, _ body: () async throws -> Void) async rethrows -> Double {
    for _ in 0..<min(200, iterations) { try await body() }  // warm-up
    let start = ContinuousClock.now
    for _ in 0..<iterations { try await body() }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let micros = seconds / Double(iterations) * 1e6
    print(
        label.padding(toLength: 16, withPad: " ", startingAt: 0)
            + String(format: "%10.1f ops/s %9.2f µs/op", Double(iterations) / seconds, micros))
    return micros
}

let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20_000
let now = Date()
let claims = AccessClaims(
    issuer: "pinhole", audience: "pinhole-api", subject: "f31ebdc1-00cb-400e-89bc-f547011d6ad7", issuedAt: now,
    expiresAt: now.addingTimeInterval(900), tokenID: "7GmgnW63YnIek8yAQ-_Drg",
    sessionID: "e8e4f036-d729-4b61-b402-bfbc887572ce", scope: "user")

let eddsa = JWTKeyCollection()
await eddsa.add(eddsa: try EdDSA.PrivateKey(curve: .ed25519), kid: "ed")
let es256 = JWTKeyCollection()
await es256.add(ecdsa: ES256PrivateKey(), kid: "es")

print("jwt-kit sign/verify, \(iterations) iterations each, one thread")
let eddsaToken = try await eddsa.sign(claims, kid: "ed")
let es256Token = try await es256.sign(claims, kid: "es")
let results = [
    (
        "EdDSA sign",
        try await measure("EdDSA sign", iterations: iterations) { _ = try await eddsa.sign(claims, kid: "ed") }
    ),
    (
        "EdDSA verify",
        try await measure("EdDSA verify", iterations: iterations) {
            _ = try await eddsa.verify(eddsaToken, as: AccessClaims.self)
        }
    ),
    (
        "ES256 sign",
        try await measure("ES256 sign", iterations: iterations) { _ = try await es256.sign(claims, kid: "es") }
    ),
    (
        "ES256 verify",
        try await measure("ES256 verify", iterations: iterations) {
            _ = try await es256.verify(es256Token, as: AccessClaims.self)
        }
    ),
]
print("token length: EdDSA \(eddsaToken.utf8.count) bytes, ES256 \(es256Token.utf8.count) bytes")
let verifyRatio = results[3].1 / results[1].1
let signRatio = results[2].1 / results[0].1
print(String(format: "ES256/EdDSA time ratio: sign %.2fx, verify %.2fx", signRatio, verifyRatio))
