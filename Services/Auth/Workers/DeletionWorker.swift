import Logging
import ServiceKit
import ServiceLifecycle

/// Completes account deletions once every service has confirmed (acknowledged
/// `user.deleted`): revokes the user's Apple tokens, then deletes the user row. A revocation
/// Apple does not confirm is tried again on the next round; the deletion waits for it.
struct DeletionWorker: Service {
    let store: AuthStore
    let apple: AppleSignIn?
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            while true {
                await finishConfirmed()
                try await Task.sleep(for: interval)
            }
        }
    }

    func finishConfirmed() async {
        do {
            for deletion in try await store.confirmedDeletions() {
                if let account = try await store.appleAccount(userID: deletion.userID), let token = account.refreshToken
                {
                    guard let apple else { continue }
                    do {
                        try await apple.revoke(refreshToken: token, clientID: account.clientID)
                    } catch {
                        logger.warning(
                            "Apple token revocation failed; will retry", metadata: ["deletion_id": "\(deletion.id)"])
                        continue
                    }
                }
                try await store.finish(deletion, now: clock.now())
                logger.info("account deletion completed", metadata: ["deletion_id": "\(deletion.id)"])
            }
        } catch {
            logger.error("account deletions could not be completed", metadata: ["error": "\(error)"])
        }
    }
}
