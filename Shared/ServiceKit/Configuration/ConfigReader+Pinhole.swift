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
            CommandLineArgumentsProvider(arguments: arguments, secretsSpecifier: .dynamic { key, _ in
                ConfigKeys.isSecret(key)
            }),
            EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: .dynamic { key, _ in
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

    /// A reader over fixed values, as tests and the CLI build it.
    public static func fixed(_ values: [String: String]) -> ConfigReader {
        var converted: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in values {
            converted[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = ConfigValue(
                .string(value), isSecret: ConfigKeys.isSecret(key))
        }
        return ConfigReader(provider: InMemoryProvider(values: converted))
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
