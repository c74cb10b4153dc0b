import Configuration
import Foundation
import ServiceKit

/// Media's own settings.
///
/// Keys:
/// - `media.blobDir` (default `<data.dir>/media/blobs`): where the bytes live, named by their
///   SHA-256.
/// - `media.maxPhotoBytes` (default 10485760): the largest single-request photo upload.
struct MediaSettings: Sendable {
    let blobDirectory: URL
    let maxPhotoBytes: Int

    init(reader: ConfigReader, shared: ServiceSettings) throws {
        let defaultDirectory = shared.dataDirectory.appendingPathComponent("media/blobs", isDirectory: true)
        self.blobDirectory = URL(
            fileURLWithPath: reader.string(forKey: "media.blobDir", default: defaultDirectory.path), isDirectory: true)
        self.maxPhotoBytes = try reader.integer("media.maxPhotoBytes", default: 10 << 20, in: 1024...(1 << 30))
    }
}
