import Foundation
import GRDB
import Logging
import NIOPosix
import ServiceHTTP
import ServiceLifecycle
import ServiceStore

/// Makes a media object's processed copies and records the outcome.
///
/// - Photos: through ``ImageProcessor`` (pixel limit, upright metadata-free copy, thumbnail),
///   while the upload is answered.
/// - Videos: the container was read while the upload was answered; with ffmpeg, the poster
///   frame (and its thumbnail) and a copy without metadata are made just after, by
///   ``MediaProcessingWorker``.
///
/// Copies are content-addressed blobs and the outcome is recorded only from `processing`, so
/// running it again, or after a crash half-way, changes nothing.
struct MediaProcessor: Sendable {
    let store: MediaStore
    let blobs: BlobStore
    let images: ImageProcessor
    let ffmpeg: FFmpeg?
    /// Scores each new photo and video; what it holds waits for a moderator.
    let screening: Screening
    let clock: any WallClock
    /// Rung when a video starts processing, to wake ``MediaProcessingWorker``.
    let doorbell: Doorbell

    /// Admits the checked, flushed staging file `file` as media `record` (in `processing`): a
    /// photo is processed now, and one that cannot be is a ``MediaRejection`` with nothing
    /// stored (the file is deleted); a
    /// video is stored and processed next by the worker (or, without ffmpeg, ready at once). `save` records the row (a plain
    /// insert, or the end of an upload).
    func admit(
        _ file: URL, as record: MediaRecord, save: (MediaRecord) async throws -> Void
    ) async throws -> MediaRecord {
        var record = record
        if record.contentType.hasPrefix("image/") {
            do {
                let copies = try await copies(of: file, contentType: record.contentType)
                copies.apply(to: &record)
                (record.status, record.processedAt) = (.ready, clock.now())
                if let verdict = await screen(record) { record.hold(verdict) }
            } catch {
                try? FileManager.default.removeItem(at: file)
                throw error
            }
        } else if ffmpeg == nil {
            // Nothing more to make of a video without ffmpeg.
            (record.status, record.processedAt) = (.ready, clock.now())
        }
        try await blobs.store(file, sha256: record.sha256)
        try await save(record)
        if record.status == .processing { doorbell.ring() }
        return record
    }

    /// Makes and stores the processed copies of the local file `original`; a file that cannot
    /// be processed is a ``MediaRejection``.
    func copies(of original: URL, contentType: String) async throws -> ProcessedCopies {
        if contentType.hasPrefix("image/") {
            return try await imageCopies(of: original, contentType: contentType)
        }
        guard let ffmpeg else { return ProcessedCopies() }
        let frame = blobs.scratchFile(".jpg")
        defer { try? FileManager.default.removeItem(at: frame) }
        try await ffmpeg.posterFrame(of: original, to: frame)
        let poster = try await imageCopies(of: frame, contentType: "image/jpeg")
        let stripped = blobs.scratchFile(".video")
        defer { try? FileManager.default.removeItem(at: stripped) }
        try await ffmpeg.withoutMetadata(
            original, format: contentType == "video/quicktime" ? "mov" : "mp4", to: stripped)
        let display = try await blobs.storeHashing(stripped)
        var copies = ProcessedCopies()
        copies.display = (display.sha256, contentType, display.byteSize)
        copies.thumbnail = poster.thumbnail
        copies.poster = poster.display.map { ($0.sha256, $0.size) }
        copies.placeholder = poster.placeholder
        return copies
    }

    private func imageCopies(of file: URL, contentType: String) async throws -> ProcessedCopies {
        let output = blobs.scratchFile()
        let images = self.images
        let made = try await NIOThreadPool.singleton.runIfActive {
            try images.process(file, contentType: contentType, output: output)
        }
        defer {
            try? FileManager.default.removeItem(at: made.display)
            try? FileManager.default.removeItem(at: made.thumbnail)
        }
        let display = try await blobs.storeHashing(made.display)
        let thumbnail = try await blobs.storeHashing(made.thumbnail)
        var copies = ProcessedCopies()
        copies.display = (display.sha256, made.displayType, display.byteSize)
        copies.thumbnail = (thumbnail.sha256, thumbnail.byteSize)
        (copies.width, copies.height) = (made.width, made.height)
        copies.placeholder = made.placeholder
        return copies
    }

    /// Processes a stored media object that is in `processing`: idempotent, and a media in
    /// any other state is returned as it is. Storage failures throw (the worker retries);
    /// bad bytes reject the media.
    @discardableResult
    func process(id: String) async throws -> MediaRecord? {
        guard let media = try await store.media(id: id), media.status == .processing else {
            return try await store.media(id: id)
        }
        let (file, done) = try await blobs.localFile(sha256: media.sha256)
        defer { done() }
        let outcome: Result<ProcessedCopies, MediaRejection>
        var held: ScreeningVerdict?
        do {
            let copies = try await copies(of: file, contentType: media.contentType)
            outcome = .success(copies)
            var processed = media
            copies.apply(to: &processed)
            held = await screen(processed)
        } catch let rejection as MediaRejection {
            outcome = .failure(rejection)
        }
        return try await store.finishProcessing(id, at: clock.now(), blobs: blobs, outcome: outcome, held: held)
    }

    /// Screening's verdict when it holds `media` (its copies made), or nil to publish it.
    func screen(_ media: MediaRecord) async -> ScreeningVerdict? {
        var thumbnail: Data?
        if let hash = media.thumbnailSha256, let (file, done) = try? await blobs.localFile(sha256: hash) {
            thumbnail = try? Data(contentsOf: file)
            done()
        }
        return await screening.hold(
            ScreeningSample(
                mediaID: media.id, contentType: media.contentType, sha256: media.sha256, thumbnail: thumbnail))
    }
}
