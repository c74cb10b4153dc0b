import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Auth's database, one store per aggregate, all over the same pool: each controller and
/// worker takes only the stores it uses.
struct AuthStore: Sendable {
    let users: UserStore
    let sessions: SessionStore
    let tenants: TenantStore
    let pinSignIns: PinSignInStore
    let entitlements: EntitlementStore
    let phones: PhoneStore
    let deletions: DeletionStore
    let attestation: AttestationStore
    let people: PeopleStore
    let email: EmailStore

    init(database: DatabasePool, outbox: Outbox, views: Views, mail: AccountMail) {
        self.users = UserStore(database: database, outbox: outbox)
        self.sessions = SessionStore(database: database, outbox: outbox)
        self.tenants = TenantStore(database: database, outbox: outbox)
        self.pinSignIns = PinSignInStore(database: database, outbox: outbox)
        self.entitlements = EntitlementStore(database: database, outbox: outbox)
        self.phones = PhoneStore(database: database)
        self.deletions = DeletionStore(database: database, outbox: outbox)
        self.attestation = AttestationStore(database: database)
        self.people = PeopleStore(database: database, views: views)
        self.email = EmailStore(database: database, outbox: outbox, mail: mail)
    }
}
