import Contracts
import HTTPTypes
import ServiceHTTP

/// Why bytes did not become a media object (or a media object was refused later, by
/// processing). The reason is kept on the upload or media and shown to its owner; the code
/// is the answer's: 415 for bytes that are not what they claim or cannot be read, 422 for a
/// clip of the wrong length or a file processing refuses.
struct MediaRejection: Error, Equatable {
    let reason: String
    var code: ErrorCode = .mediaRejected

    /// The answer to the request that brought the bytes.
    func error(headers: HTTPFields = [:]) -> ServiceError {
        ServiceError(code, "The media was refused: \(reason).", headers: headers)
    }
}
