import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ServiceHTTP

/// Twilio Verify: Twilio makes, sends and checks the code.
/// `POST {baseUrl}/v2/Services/{serviceSid}/Verifications` and `/VerificationCheck`, with
/// the account SID and auth token as HTTP basic credentials.
struct TwilioVerifyProvider: PhoneVerificationProvider {
    let baseURL: String
    let accountSID: String
    let authToken: String
    let serviceSID: String
    let http: HTTPClient

    func start(phone: String, userID: String, now: Date, in store: PhoneStore) async throws -> String? {
        let response = try await post("Verifications", ["To": phone, "Channel": "sms"])
        guard (200..<300).contains(response.status.code) else {
            if response.status == .badRequest {
                throw ServiceError.validation("The SMS provider refused this phone number.")
            }
            throw ServiceError(.upstreamUnavailable, "The SMS provider answered \(response.status.code).")
        }
        return nil
    }

    func check(phone: String, code: String, userID: String, stored: String?) async throws -> Bool {
        let response = try await post("VerificationCheck", ["To": phone, "Code": code])
        switch response.status.code {
        case 200:
            struct Check: Decodable { var status: String }
            return (try? JSONDecoder().decode(Check.self, from: Data(response.body.readableBytesView)))?.status
                == "approved"
        case 404: return false  // Twilio: no pending verification (expired or already approved)
        default: throw ServiceError(.upstreamUnavailable, "The SMS provider answered \(response.status.code).")
        }
    }

    private func post(_ endpoint: String, _ fields: [String: String]) async throws -> InternalResponse {
        let credentials = Data("\(accountSID):\(authToken)".utf8).base64EncodedString()
        return try await FormPost.send(
            fields, to: "\(baseURL)/v2/Services/\(serviceSID)/\(endpoint)", authorization: "Basic \(credentials)",
            provider: "The SMS provider", http: http)
    }
}
