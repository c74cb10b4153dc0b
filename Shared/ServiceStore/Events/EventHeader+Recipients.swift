import Crypto
import Foundation
import ServiceHTTP

extension EventHeader {
    /// A stable id for what this event makes for one of several recipients (a notification
    /// each): the same event and recipient always give the same id, so a redelivered event
    /// still has one effect per recipient.
    public func id(for recipient: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data("\(id.uuidString.lowercased())/\(recipient)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 layout: name-based
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
