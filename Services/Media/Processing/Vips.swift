import CVips
import Foundation

/// A thin, safe door to libvips (Debian's libvips-dev).
///
/// libvips' convenience functions are C variadics, which Swift cannot call; this uses its
/// generic operation API instead (the one language bindings use): make an operation by name,
/// set its properties from `GValue`s, build it through the operation cache, read `out`.
///
/// Only the loaders for the types Pinhole accepts are ever called, by name, after the magic
/// bytes were checked; libvips' untrusted loaders are blocked as well.
enum Vips {
    /// Why libvips refused.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A reference-counted libvips image; released when the last Swift reference goes.
    final class Image: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<VipsImage>

        init(_ pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }
        deinit { g_object_unref(gpointer(pointer)) }

        var width: Int { Int(vips_image_get_width(pointer)) }
        var height: Int { Int(vips_image_get_height(pointer)) }
        var bands: Int { Int(vips_image_get_bands(pointer)) }
    }

    /// The decoded pixels of `image`, row by row, `image.bands` bytes each; only for an 8-bit
    /// image (a small one: the whole of it is in memory).
    static func pixels(_ image: Image) throws -> [UInt8] {
        guard vips_image_get_format(image.pointer) == VIPS_FORMAT_UCHAR else {
            throw Failure(description: "not an 8-bit image")
        }
        var size = 0
        guard let memory = vips_image_write_to_memory(image.pointer, &size) else { throw lastError("write_to_memory") }
        defer { g_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: size))
    }

    /// A property value for an operation.
    enum Argument {
        case string(String)
        case int(Int32)
        case double(Double)
        case bool(Bool)
        case image(Image)
        /// An array of doubles (a per-band constant).
        case doubles([Double])
        /// An enum member by its nick (`"centre"`), of the enum type `type`.
        case enumeration(GType, String)
    }

    /// Starts libvips once per process: no operation cache (files are renamed under it), and no
    /// loader outside the fuzzed set.
    static let started: Bool = {
        guard vips_init("pinhole-media") == 0 else { return false }
        vips_cache_set_max(0)
        vips_block_untrusted_set(1)
        return true
    }()

    static let loaders: [String: String] = [
        "image/jpeg": "jpegload", "image/png": "pngload", "image/webp": "webpload", "image/heic": "heifload",
    ]

    /// Opens `file` with the loader for `contentType`. Only the header is read: pixels are
    /// decoded when an operation needs them. A truncated or damaged file fails when decoded.
    static func load(_ file: URL, contentType: String) throws -> Image {
        guard let loader = loaders[contentType] else { throw Failure(description: "no loader for \(contentType)") }
        return try call(
            loader,
            [
                "filename": .string(file.path),
                "fail-on": .enumeration(vips_fail_on_get_type(), "truncated"),
            ])
    }

    /// Runs operation `name` with `arguments` and returns its `out` image.
    static func call(_ name: String, _ arguments: [String: Argument]) throws -> Image {
        let operation = try build(name, arguments)
        defer { release(operation) }
        var value = GValue()
        g_value_init(&value, vips_image_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(object(operation), "out", &value)
        guard let image = g_value_dup_object(&value) else { throw Failure(description: "\(name) made no image") }
        return Image(image.assumingMemoryBound(to: VipsImage.self))
    }

    /// Runs a saver (an operation whose result is a file).
    static func save(_ saver: String, _ arguments: [String: Argument]) throws {
        release(try build(saver, arguments))
    }

    /// Makes operation `name`, sets `arguments` and builds it.
    private static func build(
        _ name: String, _ arguments: [String: Argument]
    ) throws -> UnsafeMutablePointer<VipsOperation> {
        guard started else { throw Failure(description: "libvips did not start") }
        var operation: UnsafeMutablePointer<VipsOperation>? = vips_operation_new(name)
        guard let made = operation else { throw lastError(name) }
        for (key, argument) in arguments {
            var value = GValue()
            argument.initialize(&value)
            g_object_set_property(object(made), key, &value)
            g_value_unset(&value)
        }
        guard vips_cache_operation_buildp(&operation) == 0, let built = operation else {
            release(made)
            throw lastError(name)
        }
        return built
    }

    private static func release(_ operation: UnsafeMutablePointer<VipsOperation>) {
        vips_object_unref_outputs(UnsafeMutableRawPointer(operation).assumingMemoryBound(to: VipsObject.self))
        g_object_unref(gpointer(operation))
    }

    /// Whether `image` carries an ICC profile.
    static func hasColorProfile(_ image: Image) -> Bool {
        vips_image_get_typeof(image.pointer, "icc-profile-data") != 0
    }

    private static func object(_ operation: UnsafeMutablePointer<VipsOperation>) -> UnsafeMutablePointer<GObject> {
        UnsafeMutableRawPointer(operation).assumingMemoryBound(to: GObject.self)
    }

    private static func lastError(_ operation: String) -> Failure {
        let message = String(cString: vips_error_buffer()).trimmingCharacters(in: .whitespacesAndNewlines)
        vips_error_clear()
        return Failure(description: message.isEmpty ? "\(operation) failed" : message)
    }
}

extension Vips.Argument {
    /// GLib's fundamental types (`G_TYPE_MAKE_FUNDAMENTAL(n)`, which Swift does not import).
    private static let boolean = GType(5 << 2)
    private static let int = GType(6 << 2)
    private static let double = GType(15 << 2)
    private static let string = GType(16 << 2)

    fileprivate func initialize(_ value: inout GValue) {
        switch self {
        case .string(let text):
            g_value_init(&value, Self.string)
            g_value_set_string(&value, text)
        case .int(let number):
            g_value_init(&value, Self.int)
            g_value_set_int(&value, number)
        case .double(let number):
            g_value_init(&value, Self.double)
            g_value_set_double(&value, number)
        case .bool(let flag):
            g_value_init(&value, Self.boolean)
            g_value_set_boolean(&value, flag ? 1 : 0)
        case .image(let image):
            g_value_init(&value, vips_image_get_type())
            g_value_set_object(&value, gpointer(image.pointer))
        case .doubles(let numbers):
            g_value_init(&value, vips_array_double_get_type())
            numbers.withUnsafeBufferPointer { vips_value_set_array_double(&value, $0.baseAddress, Int32($0.count)) }
        case .enumeration(let type, let nick):
            g_value_init(&value, type)
            g_value_set_enum(&value, vips_enum_from_nick("pinhole", type, nick))
        }
    }
}
