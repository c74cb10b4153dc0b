import Contracts
import Foundation
import Hummingbird
import NIOPosix
import ServiceHTTP

/// `POST /internal/share-cards` (streak): renders a milestone share card
/// (``ShareCardRenderer``), keeps it as the owner's private media and answers a presigned GET
/// URL for it.
struct InternalShareCardsController: Sendable {
    let store: MediaStore
    let blobs: BlobStore
    let presigner: Presigner
    let settings: MediaSettings
    let clock: any WallClock
    let entropy: any Entropy

    static let callers: Set<ServiceName> = [.streak]
    static let maxNameLength = 50

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.post("/internal/share-cards", use: render)
    }

    @Sendable func render(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let caller = try await PeerIdentity.require(context, oneOf: Self.callers)
        let card = try await request.decodeJSON(as: ShareCardRender.self, context: context)
        let owner = try ObjectID.field(card.ownerId, "ownerId")
        guard card.count >= 0, (1...2).contains(card.names.count),
            card.names.allSatisfy({ (1...Self.maxNameLength).contains($0.count) }), card.watermark.count <= 40
        else {
            throw ServiceError.validation(
                "A card has a count, one or two names of 1–50 characters and a short watermark.")
        }
        let file = blobs.scratchFile(".png")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try await NIOThreadPool.singleton.runIfActive { try ShareCardRenderer.render(card, to: file) }
        } catch let failure as Vips.Failure {
            throw ServiceError(.internalError, "The card could not be drawn (\(ImageProcessor.firstLine(failure))).")
        }
        let (sha256, size) = try await blobs.storeHashing(file)
        let now = clock.now()
        let record = MediaRecord(
            id: entropy.uuid().uuidString.lowercased(), ownerId: owner, contentType: "image/png", byteSize: size,
            sha256: sha256, status: .ready, visibility: .private, createdAt: now, width: ShareCardRenderer.width,
            height: ShareCardRenderer.height, processedAt: now)
        // The caller's reference: it may withdraw the card later (`media.withdrawn`).
        try await store.insert(
            record,
            reference: MediaReferenceRecord(
                mediaId: record.id, service: caller.rawValue, referenceType: "share_card", referenceId: record.id))
        let expires = Int(now.timeIntervalSince1970) + settings.presignDownloadSeconds
        return try Response.json(
            ShareCard(
                mediaId: record.id, style: card.style, count: card.count, width: ShareCardRenderer.width,
                height: ShareCardRenderer.height, url: presigner.downloadURL(id: record.id, expires: expires),
                expiresAt: Date(timeIntervalSince1970: TimeInterval(expires))), status: .created)
    }
}
