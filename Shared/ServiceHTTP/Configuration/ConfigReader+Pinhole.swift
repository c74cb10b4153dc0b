import Configuration
import Foundation
import SystemPackage

extension ConfigReader {
    /// The configuration every Pinhole executable reads, highest priority first:
    /// command-line flags (`--http-port 9000`), environment variables (`HTTP_PORT=9000`),
    /// an optional `.env` file in the working directory, then the built-in defaults.
    ///
    /// Key `a.bC` is flag `--a-b-c` and variable `A_B_C`.
    public static func pinhole(
        arguments: [String] = CommandLine.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        environmentFile: String? = ".env"
    ) async throws -> ConfigReader {
        var providers: [any ConfigProvider] = [
            CommandLineArgumentsProvider(
                arguments: arguments,
                secretsSpecifier: .dynamic { key, _ in
                    ConfigKeys.isSecret(key)
                }),
            EnvironmentVariablesProvider(
                environmentVariables: environment,
                secretsSpecifier: .dynamic { key, _ in
                    ConfigKeys.isSecret(key)
                }),
        ]
        if let environmentFile {
            providers.append(
                try await EnvironmentVariablesProvider(
                    environmentFilePath: FilePath(environmentFile), allowMissing: true,
                    secretsSpecifier: .dynamic { key, _ in ConfigKeys.isSecret(key) }))
        }
        return ConfigReader(providers: providers)
    }

    /// A reader over fixed values given by key (`http.port`), read exactly as if they came
    /// from the environment; for tests.
    public static func fixed(_ values: [String: String]) -> ConfigReader {
        var environment: [String: String] = [:]
        for (key, value) in values { environment[ConfigKeys.environmentName(key)] = value }
        return ConfigReader(
            provider: EnvironmentVariablesProvider(
                environmentVariables: environment, secretsSpecifier: .dynamic { key, _ in ConfigKeys.isSecret(key) }))
    }

    /// An integer setting. Unlike `int(forKey:default:)`, a value that is present but not a
    /// whole number stops the boot instead of silently falling back to the default.
    public func integer(
        _ key: String, default defaultValue: Int, in range: ClosedRange<Int> = 0...Int.max
    ) throws -> Int {
        guard let text = string(forKey: ConfigKey(key)) else { return defaultValue }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw ConfigurationError(
                "\(key) must be a whole number in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return value
    }

    /// A decimal setting; a value that is present but not a number in `range` stops the boot.
    public func decimal(
        _ key: String, default defaultValue: Double,
        in range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
    ) throws -> Double {
        guard let text = string(forKey: ConfigKey(key)) else { return defaultValue }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, range.contains(value)
        else {
            throw ConfigurationError(
                "\(key) must be a number in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return value
    }

    /// A boolean setting (`true`/`false`, `1`/`0`, `yes`/`no`); anything else stops the boot.
    public func boolean(_ key: String, default defaultValue: Bool) throws -> Bool {
        guard let text = string(forKey: ConfigKey(key)) else { return defaultValue }
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError("\(key) must be true or false, got \(text)")
        }
    }
}

/// Names of configuration keys shared between executables and the CLI.
public enum ConfigKeys {
    /// Keys whose values are secrets and never logged, in any spelling.
    static func isSecret(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ["secret", "token", "password", "pepper"].contains { lowered.contains($0) }
            && !lowered.contains("ttl") && !lowered.contains("timeout")
    }

    /// The environment variable of a key: `auth.accessTokenTtl` is `AUTH_ACCESS_TOKEN_TTL`.
    public static func environmentName(_ key: String) -> String {
        key.split(separator: ".").map { component in
            var result = ""
            var previousLowercase = false
            for character in component {
                if character.isUppercase && previousLowercase { result += "_" }
                result += character.isLetter || character.isNumber ? character.uppercased() : "_"
                previousLowercase = character.isLowercase
            }
            return result
        }.joined(separator: "_")
    }

    /// Flags that set `key` to `value` for a child process: `["--http-port", "9000"]`.
    public static func flag(_ key: String, _ value: String) -> [String] {
        let dashed = key.split(separator: ".").map { component in
            component.reduce(into: "") { result, character in
                if character.isUppercase {
                    result += "-" + character.lowercased()
                } else {
                    result.append(character)
                }
            }
        }.joined(separator: "-")
        return ["--" + dashed, value]
    }
}
