import ServiceHTTP

/// The gateway: the only public listener. Verifies tokens, applies rate and size limits,
/// and forwards `/v1/...` to the service that owns it over mutual-TLS HTTP/2.
@main
struct App {
    static func main() async {
        await ServiceMain.run(.gateway) { reader, metrics in
            try await buildApplication(reader: reader, metrics: metrics)
        }
    }
}
