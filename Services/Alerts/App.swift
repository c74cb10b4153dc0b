import ServiceHTTP
import ServiceStore

/// The alerts service: everything delivered to a person (notification centre, push, reminders, duress alerts, messages).
@main
struct App {
    static func main() async {
        await ServiceMain.run(.alerts, migrations: AlertsStore.registerMigrations) { reader, metrics in
            try await buildApplication(reader: reader, metrics: metrics)
        }
    }
}
