import Contracts
import Foundation
import ServiceHTTP

/// What a registration must look like for each provider, checked before anything is stored so
/// that a typo never becomes a device that fails every push.
enum PushTokenRules {
    /// Devices one user keeps; registering beyond it drops the least recently refreshed.
    static let maxDevicesPerUser = 20

    /// The registration in its stored form (APNs tokens lowercased), or a 400 naming the field.
    static func validated(_ registration: DeviceRegistration) throws -> DeviceRegistration {
        var registration = registration
        registration.token = registration.token.trimmingCharacters(in: .whitespaces)
        let token = registration.token
        switch registration.provider {
        case .apns:
            // A device token is binary data the app hex-encodes: 32 bytes today, up to 100 by
            // Apple's word.
            guard (64...200).contains(token.utf8.count), token.utf8.count % 2 == 0, token.utf8.allSatisfy(\.isHexDigit)
            else { throw ServiceError.validation("An APNs `token` is the device token in hex (64 to 200 digits).") }
            registration.token = token.lowercased()
            guard let bundleId = registration.bundleId, isBundleID(bundleId) else {
                throw ServiceError.validation("APNs devices need `bundleId`, the app's bundle id (com.example.app).")
            }
            guard registration.environment != nil else {
                throw ServiceError.validation("APNs devices need `environment`: `sandbox` or `production`.")
            }
        case .fcm:
            guard (64...4096).contains(token.utf8.count), token.utf8.allSatisfy(\.isFCMTokenCharacter) else {
                throw ServiceError.validation(
                    "An FCM `token` is a registration token (64 or more of A-Z a-z 0-9 : _ -).")
            }
            try noAPNsFields(registration)
        case .expo:
            guard isExpoToken(token) else {
                throw ServiceError.validation("An Expo `token` looks like ExponentPushToken[…].")
            }
            try noAPNsFields(registration)
        }
        if let platform = registration.platform, platform != "ios" && platform != "android" {
            throw ServiceError.validation("`platform` is `ios` or `android`.")
        }
        if let deviceId = registration.deviceId, !(1...200).contains(deviceId.unicodeScalars.count) {
            throw ServiceError.validation("`deviceId` is 1 to 200 characters.")
        }
        return registration
    }

    /// `ExponentPushToken[…]` or `ExpoPushToken[…]`.
    static func isExpoToken(_ token: String) -> Bool {
        for prefix in ["ExponentPushToken[", "ExpoPushToken["] where token.hasPrefix(prefix) && token.hasSuffix("]") {
            let inner = token.utf8.dropFirst(prefix.utf8.count).dropLast()
            return (1...256).contains(inner.count)
                && inner.allSatisfy { $0.isFCMTokenCharacter && $0 != UInt8(ascii: ":") }
        }
        return false
    }

    /// Reverse-DNS: two or more labels of letters, digits and hyphens.
    static func isBundleID(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.utf8.count <= 155 && labels.count >= 2
            && labels.allSatisfy { label in
                !label.isEmpty && label.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") }
            }
    }

    private static func noAPNsFields(_ registration: DeviceRegistration) throws {
        guard registration.bundleId == nil, registration.environment == nil else {
            throw ServiceError.validation("`bundleId` and `environment` are for APNs devices only.")
        }
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }

    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }

    fileprivate var isFCMTokenCharacter: Bool {
        isASCIILetterOrDigit || self == UInt8(ascii: ":") || self == UInt8(ascii: "_") || self == UInt8(ascii: "-")
    }
}
