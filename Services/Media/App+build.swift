import AsyncHTTPClient
import Configuration
import Contracts
import Crypto
import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceHTTP
import ServiceLifecycle
import ServiceStore

/// Builds the media application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .media, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// The media router and its long-running jobs.
func buildRouter(runtime: ServiceRuntime, reader: ConfigReader) async throws -> ServiceParts<ServiceRequestContext> {
    let (clock, entropy) = (runtime.clock, runtime.entropy)
    let settings = try MediaSettings(reader: reader, shared: runtime.settings)
    let database = try runtime.openDatabase(registerMigrations: MediaStore.registerMigrations)
    let outbox = runtime.makeOutbox()
    let store = MediaStore(database: database, outbox: outbox)
    let blobs = try makeBlobStore(settings, clock: clock, logger: runtime.logger)
    blobs.removeAbandonedWrites()
    let ffmpeg = FFmpeg.locate(settings.ffmpeg)
    runtime.logger.info(
        "media processing", metadata: ["ffmpeg": "\(ffmpeg?.executable.path ?? "none: no posters")"])
    let processor = MediaProcessor(
        store: store, blobs: blobs, images: ImageProcessor(maxPixels: settings.maxPixels), ffmpeg: ffmpeg,
        screening: try settings.screening.make(logger: runtime.logger), clock: clock, doorbell: Doorbell())
    let intake = MediaIntake(processor: processor, clipDuration: settings.clipDuration, clock: clock)
    let files = try UploadFiles(blobDirectory: settings.blobDirectory)
    for id in try await store.rejectInterruptedCompletions() { files.remove(id) }
    let presigner = Presigner(
        key: SymmetricKey(data: try FileSystem.secret(in: settings.presignKeyFile, entropy: entropy)))

    var inbox = EventInbox(clock: clock)
    inbox.on(MediaAttached.self) { envelope, db in try store.attach(envelope, in: db) }
    inbox.on(MediaDetached.self) { envelope, db in try MediaStore.detach(envelope, in: db) }
    inbox.on(MediaSharingEnded.self) { envelope, db in try MediaStore.endSharing(envelope, in: db) }
    inbox.on(MediaWithdrawn.self) { envelope, db in try MediaStore.withdraw(envelope, blobs: blobs, in: db) }
    // A moderator's decision about media screening held.
    inbox.on(ContentRestored.self) { envelope, db in
        try MediaStore.release(envelope.payload, outbox: store.outbox, in: db)
    }
    inbox.on(ContentRemoved.self) { envelope, db in try MediaStore.remove(envelope.payload, in: db) }
    inbox.on(DuressRaised.self) { envelope, db in try MediaStore.duressRaised(envelope, in: db) }
    inbox.onUserDeleted { userID, db in try MediaStore.erase(userID: userID, blobs: blobs, uploads: files, in: db) }

    // The keys of view URLs: media's own, made and rotated here, fetched by every other service.
    let viewKeyFiles = ViewKeyFiles(
        directory: settings.viewKeysDirectory, rotation: settings.viewKeyRotation, clock: clock, entropy: entropy)
    let viewKeys = try MediaURLKeyRing.fixed(try viewKeyFiles.current(), logger: runtime.logger)

    let (router, routes) = runtime.makeRoutes(database: database)
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    InternalMediaController(store: store, blobs: blobs, viewKeys: viewKeys).addRoutes(to: routes)
    MediaViewsController(store: store, blobs: blobs, keys: viewKeys, clock: clock).addRoutes(to: routes)
    ModerationSubjectsController(owner: .media) { _, id, _ in try await store.moderationSubject(media: id) }
        .addRoutes(to: routes)
    InternalShareCardsController(
        store: store, blobs: blobs, presigner: presigner, settings: settings, clock: clock, entropy: entropy
    ).addRoutes(to: routes)
    MediaController(
        store: store, views: Views(keys: viewKeys, clock: clock), intake: intake,
        maxPhotoBytes: settings.maxPhotoBytes, clock: clock, entropy: entropy
    ).addRoutes(to: routes)
    let presigned = PresignedObjects(
        store: store, intake: intake, presigner: presigner, settings: settings, clock: clock, entropy: entropy)
    PresignController(shared: presigned).addRoutes(to: routes)
    EvidenceController(shared: presigned).addRoutes(to: routes)
    // Resumable uploads, by tus and by the IETF draft: the same records, files, limits and writer.
    let uploads = UploadRegistry(store: store, files: files, settings: settings, clock: clock, entropy: entropy)
    let appender = UploadAppender(store: store, files: files, intake: intake, locks: UploadLocks(), entropy: entropy)
    UploadsController(store: store, uploads: uploads, appender: appender, settings: settings).addRoutes(to: routes)
    ResumableUploadsController(uploads: uploads, appender: appender).addRoutes(to: routes)
    return ServiceParts(
        router: router,
        services: [
            UploadSweeper(store: store, files: files, clock: clock, interval: .seconds(60), logger: runtime.logger),
            ViewKeyRotator(files: viewKeyFiles, ring: viewKeys, logger: runtime.logger),
            MediaProcessingWorker(processor: processor, interval: .seconds(30), logger: runtime.logger),
            BlobCollector(
                store: store, blobs: blobs, clock: clock, grace: settings.gcGrace, interval: settings.gcInterval,
                logger: runtime.logger),
            runtime.makeOutboxDispatcher(database: database, outbox: outbox),
        ]
            + replicaWorkers(blobs, logger: runtime.logger))
}

/// With replication on and local blobs, the worker that keeps the blob replica whole.
func replicaWorkers(_ blobs: BlobStore, logger: Logger) -> [any Service] {
    guard let replica = blobs.replica, let local = blobs.backend as? LocalBlobBackend else { return [] }
    return [BlobReplicaWorker(replica: replica, local: local, interval: .seconds(30), logger: logger)]
}

/// The blob store `media.storage` names: local files, or an S3-compatible bucket (staging
/// stays local either way).
func makeBlobStore(_ settings: MediaSettings, clock: any WallClock, logger: Logger) throws -> BlobStore {
    guard let s3 = settings.s3 else {
        let replica = try settings.replication.map {
            try BlobReplica.make(
                $0, localStaging: settings.blobDirectory.appendingPathComponent("tmp", isDirectory: true),
                logger: logger)
        }
        return try BlobStore(
            stagingIn: settings.blobDirectory, backend: try LocalBlobBackend(directory: settings.blobDirectory),
            replica: replica)
    }
    let backend = S3BlobBackend(
        client: .shared,
        signer: S3Signer(accessKeyID: s3.accessKeyID, secretAccessKey: s3.secretAccessKey, region: s3.region),
        location: s3.location, clock: clock)
    return try BlobStore(stagingIn: settings.blobDirectory, backend: backend)
}

/// What the controllers that hand out and take presigned URLs (media's and evidence's) share:
/// the store, the intake that checks and keeps bytes, the presigner, the settings, the clock and
/// randomness.
struct PresignedObjects: Sendable {
    let store: MediaStore
    let intake: MediaIntake
    let presigner: Presigner
    let settings: MediaSettings
    let clock: any WallClock
    let entropy: any Entropy
}
