import ServiceHTTP
import ServiceStore

/// The feed service: public content and its engagement (posts, votes, replies, follows, nearby and ranked feeds).
@main
struct App {
    static func main() async {
        await ServiceMain.run(.feed, migrations: FeedStore.registerMigrations) { reader, metrics in
            try await buildApplication(reader: reader, metrics: metrics)
        }
    }
}
