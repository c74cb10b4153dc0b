import Logging
import ServiceHTTP
import ServiceLifecycle

/// Completes account deletions once every service has confirmed (acknowledged
/// `user.deleted`): revokes the user's Apple tokens, then deletes the user row. A revocation
/// Apple does not confirm is tried again on the next round; the deletion waits for it.
struct DeletionWorker: Service {
    let deletions: DeletionStore
    let users: UserStore
    let apple: AppleSignIn?
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async {
        await PeriodicService(interval: interval) { await finishConfirmed() }.run()
    }

    func finishConfirmed() async {
        do {
            for deletion in try await deletions.confirmed() {
                if let account = try await users.appleAccount(userID: deletion.userId), let token = account.refreshToken
                {
                    guard let apple else { continue }
                    do {
                        try await apple.revoke(refreshToken: token, clientID: account.clientId)
                    } catch {
                        logger.warning(
                            "Apple token revocation failed; will retry", metadata: ["deletion_id": "\(deletion.id)"])
                        continue
                    }
                }
                try await deletions.finish(deletion, now: clock.now())
                logger.info("account deletion completed", metadata: ["deletion_id": "\(deletion.id)"])
            }
        } catch {
            logger.failure("account deletions could not be completed", error: error)
        }
    }
}
