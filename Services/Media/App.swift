import Foundation
import ServiceHTTP
import ServiceStore

/// The media service: blobs and their lifecycle (uploads, validation, processing, custody).
@main
struct App {
    static func main() async {
        if CommandLine.arguments.dropFirst().first == BlobRestore.flag { exit(await BlobRestore.run()) }
        await ServiceMain.run(.media, migrations: MediaStore.registerMigrations) { reader, metrics in
            try await buildApplication(reader: reader, metrics: metrics)
        }
    }
}
