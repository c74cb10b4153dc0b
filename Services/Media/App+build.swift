import AsyncHTTPClient
import Configuration
import Contracts
import Crypto
import Foundation
import Hummingbird
import Prometheus
import ServiceKit

/// Builds the media application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .media, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// The media router and its long-running jobs.
func buildRouter(runtime: ServiceRuntime, reader: ConfigReader) async throws -> ServiceParts {
    let settings = try MediaSettings(reader: reader, shared: runtime.settings)
    let database = try runtime.openDatabase(registerMigrations: MediaStore.registerMigrations)
    let outbox = runtime.makeOutbox()
    let store = MediaStore(database: database, outbox: outbox)
    let blobs = try makeBlobStore(settings, clock: runtime.clock)
    blobs.removeAbandonedWrites()
    let ffmpeg = FFmpeg.locate(settings.ffmpeg)
    runtime.logger.info(
        "media processing", metadata: ["ffmpeg": "\(ffmpeg?.executable.path ?? "none: no posters")"])
    let processor = MediaProcessor(
        store: store, blobs: blobs, images: ImageProcessor(maxPixels: settings.maxPixels), ffmpeg: ffmpeg,
        clock: runtime.clock, queue: ProcessingQueue())

    var inbox = EventInbox(clock: runtime.clock)
    inbox.on(MediaAttached.self) { envelope, db in try store.attach(envelope, in: db) }
    let files = try UploadFiles(blobDirectory: settings.blobDirectory)
    for id in try await store.rejectInterruptedCompletions() { files.remove(id) }
    inbox.onUserDeleted { userID, db in try MediaStore.erase(userID: userID, blobs: blobs, uploads: files, in: db) }

    let router = runtime.makeRouter(readiness: ["database": ServiceRuntime.databaseCheck(database)])
    EventsController(inbox: inbox, database: database).addRoutes(to: router)
    InternalMediaController(store: store).addRoutes(to: router)
    let authenticated = router.group().add(middleware: AuthenticationMiddleware(verifier: runtime.makeTokenVerifier()))
    let mediaController = MediaController(
        store: store, blobs: blobs, processor: processor, maxPhotoBytes: settings.maxPhotoBytes, clock: runtime.clock,
        entropy: runtime.entropy)
    let presigner = Presigner(
        key: SymmetricKey(data: try FileSystem.secret(in: settings.presignKeyFile, entropy: runtime.entropy)))
    PresignController(
        media: mediaController, presigner: presigner, settings: settings, clock: runtime.clock,
        entropy: runtime.entropy
    ).addRoutes(authenticated: authenticated, public: router)
    EvidenceController(
        store: store, blobs: blobs, presigner: presigner, settings: settings, clock: runtime.clock,
        entropy: runtime.entropy
    ).addRoutes(authenticated: authenticated, public: router)
    mediaController.addRoutes(
        to: authenticated,
        idempotency: IdempotencyMiddleware(
            database: database, clock: runtime.clock, maxBodyBytes: settings.maxPhotoBytes + 1))
    UploadsController(
        store: store, files: files, processor: processor, settings: settings, locks: UploadLocks(),
        clock: runtime.clock,
        entropy: runtime.entropy
    ).addRoutes(to: authenticated)
    return ServiceParts(
        router: router,
        services: [
            UploadSweeper(
                store: store, files: files, clock: runtime.clock, interval: .seconds(60), logger: runtime.logger),
            MediaProcessingWorker(processor: processor, interval: .seconds(30), logger: runtime.logger),
            BlobCollector(
                store: store, blobs: blobs, clock: runtime.clock, grace: settings.gcGrace,
                interval: settings.gcInterval, logger: runtime.logger),
            runtime.makeOutboxDispatcher(database: database, outbox: outbox),
        ])
}

/// The blob store `media.storage` names: local files, or an S3-compatible bucket (staging
/// stays local either way).
func makeBlobStore(_ settings: MediaSettings, clock: any WallClock) throws -> BlobStore {
    guard let s3 = settings.s3 else { return try BlobStore(directory: settings.blobDirectory) }
    let backend = S3BlobBackend(
        client: .shared,
        signer: S3Signer(accessKeyID: s3.accessKeyID, secretAccessKey: s3.secretAccessKey, region: s3.region),
        location: s3.location, clock: clock)
    return try BlobStore(stagingIn: settings.blobDirectory, backend: backend)
}
