import CCurl
import Foundation
import NIOPosix
import ServiceHTTP
import ServiceStore

/// How auth reaches an SMTP server (`mail.smtp.*`).
struct SMTPSettings: Sendable, Equatable {
    enum Security: String, Sendable {
        /// `smtps://`: TLS from the first byte (port 465).
        case implicitTLS = "tls"
        /// `smtp://` upgraded with STARTTLS, which must succeed (port 587).
        case startTLS = "starttls"
        /// `smtp://` in the clear: only for a relay on the same machine or network.
        case none
    }

    /// `host:port`.
    var server: String
    var security: Security
    var username: String?
    var password: String?
    /// A PEM file of the certificate authorities to trust instead of the system's (a company
    /// relay with a private CA; the tests' own server).
    var caFile: String?
    var timeout: Int = 30

    /// The URL libcurl is given.
    var url: String { (security == .implicitTLS ? "smtps://" : "smtp://") + server }
}

/// Sends mail over SMTP with libcurl (Debian's `libcurl4-openssl-dev`): STARTTLS or implicit
/// TLS with certificate checks, AUTH with whatever mechanism the server offers, one connection
/// per message. libcurl's calls block, so each send runs on NIO's thread pool.
///
/// A 5xx reply (a mailbox that does not exist, a message refused) fails the job for good; a
/// connection that fails, a 4xx, or a timeout is retried with the job runner's backoff.
struct SMTPTransport: MailTransport {
    let settings: SMTPSettings

    init(settings: SMTPSettings) {
        self.settings = settings
        _ = Self.globalInit
    }

    /// `curl_global_init`, once per process, before any handle.
    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    func send(_ message: MailMessage) async throws {
        let settings = settings
        try await NIOThreadPool.singleton.runIfActive { try Self.perform(message, settings) }
    }

    private static func perform(_ message: MailMessage, _ settings: SMTPSettings) throws {
        guard let handle = curl_easy_init() else { throw SMTPError("libcurl could not make a handle") }
        defer { curl_easy_cleanup(handle) }
        let body = Upload(Array(message.rendered().utf8))
        let recipients: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "<\(message.to)>")
        defer { curl_slist_free_all(recipients) }
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorText.withUnsafeMutableBufferPointer { errorBuffer in
            let context = Unmanaged.passUnretained(body).toOpaque()
            var status = CURLE_OK
            func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
            set(pinhole_curl_set_string(handle, CURLOPT_URL, settings.url))
            set(pinhole_curl_set_string(handle, CURLOPT_MAIL_FROM, "<\(message.fromAddress)>"))
            set(pinhole_curl_set_pointer(handle, CURLOPT_MAIL_RCPT, recipients))
            set(pinhole_curl_set_long(handle, CURLOPT_UPLOAD, 1))
            set(pinhole_curl_set_read_function(handle, readBody))
            set(pinhole_curl_set_pointer(handle, CURLOPT_READDATA, context))
            set(pinhole_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer.baseAddress))
            set(pinhole_curl_set_long(handle, CURLOPT_TIMEOUT, settings.timeout))
            set(pinhole_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT, min(settings.timeout, 10)))
            set(pinhole_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
            set(pinhole_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
            set(pinhole_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
            if settings.security == .startTLS {
                set(pinhole_curl_set_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)))
            }
            if let caFile = settings.caFile { set(pinhole_curl_set_string(handle, CURLOPT_CAINFO, caFile)) }
            if let username = settings.username { set(pinhole_curl_set_string(handle, CURLOPT_USERNAME, username)) }
            if let password = settings.password { set(pinhole_curl_set_string(handle, CURLOPT_PASSWORD, password)) }
            guard status == CURLE_OK else { return status }
            return curl_easy_perform(handle)
        }
        withExtendedLifetime(body) {}
        guard code != CURLE_OK else { return }
        let reply = pinhole_curl_response_code(handle)
        let written = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let detail = written.isEmpty ? String(cString: curl_easy_strerror(code)) : written
        let reason = "SMTP \(settings.server): \(detail)" + (reply > 0 ? " (reply \(reply))" : "")
        if (500...599).contains(reply) || code == CURLE_LOGIN_DENIED {
            throw JobFailure.permanent(reason)
        }
        throw SMTPError(reason)
    }

    /// The message's bytes and how many libcurl has read.
    private final class Upload {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    /// libcurl's read callback: copies the next part of the message into its buffer.
    private static let readBody:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
            buffer, size, count, context in
            guard let buffer, let context else { return 0 }
            let upload = Unmanaged<Upload>.fromOpaque(context).takeUnretainedValue()
            let length = min(size * count, upload.bytes.count - upload.offset)
            guard length > 0 else { return 0 }
            upload.bytes.withUnsafeBytes { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + upload.offset, byteCount: length)
            }
            upload.offset += length
            return length
        }
}

/// A send that failed and may work later (the job retries it).
struct SMTPError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
