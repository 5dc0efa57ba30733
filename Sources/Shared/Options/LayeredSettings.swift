import ArgumentParser
import Configuration
import Foundation
import SystemPackage

/// `--config` and `--check-config`, the same for both daemons.
public struct ConfigurationOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp(LayeredArguments.configurationHelp, valueName: "file"))
    public var config: String?

    @Flag(help: "Print the effective configuration (each setting, its value and where it came from), check the files and folders it names, and exit.")
    public var checkConfig = false

    public init() {}
}

/// One daemon setting: a flag, the environment variable and configuration-file key that stand
/// for it, and how to show its effective value (`--check-config`).
public struct Setting<Command>: Sendable {
    public enum Kind: Sendable {
        /// `--flag VALUE`
        case value
        /// `--flag` when the variable is true (`true`, `yes`, `1`)
        case flag
        /// `--flag A --flag B` from a comma-separated list
        case list
    }

    public let flag: String
    /// `CULL_JOB_DEADLINE`: the environment variable, and the key in the configuration file.
    public let variable: String
    public let kind: Kind
    public let value: @Sendable (Command) -> String

    public init(_ flag: String, _ variable: String, _ kind: Kind = .value, value: @escaping @Sendable (Command) -> String) {
        self.flag = flag
        self.variable = variable
        self.kind = kind
        self.value = value
    }

    /// The variable as swift-configuration's key (`cull.job.deadline`), which its environment
    /// providers spell `CULL_JOB_DEADLINE`.
    var key: ConfigKey { ConfigKey(variable.lowercased().split(separator: "_").map(String.init)) }
}

/// A daemon's command line with every setting it does not give filled in from the environment,
/// then from the configuration file: one precedence for every setting, flag > environment >
/// file > built-in default (docs/FEATURES.md, deploy/cull.env).
///
/// The configuration file is an environment file (`KEY=value` lines, `#` comments): the same
/// `/etc/cull/cull.env` systemd's units read, read here by the daemon itself through
/// swift-configuration's `EnvironmentVariablesProvider`, so that a setting means the same
/// whether it reached the daemon through the unit or not. `--config FILE` or `$CULL_CONFIG`
/// names it; by default `/etc/cull/cull.env` for root and `$XDG_CONFIG_HOME/cull/cull.env`
/// (`~/.config/cull/cull.env`) for others, each optional. A file named explicitly must exist;
/// `none` names no file.
/// Empty values count as not set (`CULL_KEY=` in the example file).
///
/// Filling the command line in, rather than reading each setting in its own way, keeps
/// ArgumentParser the one place that parses and validates values: a bad value in the file gets
/// the same message as the same value given as a flag, naming the flag.
public struct LayeredArguments: Sendable {
    public enum Origin: String, Sendable {
        case flag, environment, file
        case builtIn = "default"
    }

    public var arguments: [String]
    /// Where each setting came from, by flag.
    public var origins: [String: Origin]
    /// The configuration file read, if any.
    public var file: String?

    /// `arguments` as they are, nothing filled in.
    public init(arguments: [String], origins: [String: Origin] = [:], file: String? = nil) {
        self.arguments = arguments
        self.origins = origins
        self.file = file
    }

    /// The `--config` option's help, the same for both daemons.
    public static let configurationHelp = """
        The configuration file: KEY=value lines, as deploy/cull.env (default: $CULL_CONFIG, else /etc/cull/cull.env for root, \
        else ~/.config/cull/cull.env; a missing default file is no error; `none`: no file). Every flag has a key there and an \
        environment variable of the same name (--check-config lists them); a flag wins over the environment, the environment \
        over the file.
        """

    public static func defaultFile(environment: [String: String]) -> String {
        if getuid() == 0 { return "/etc/cull/cull.env" }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.config")
        return config + "/cull/cull.env"
    }

    /// Fills `arguments` (the command's own, without the program or subcommand name).
    ///
    /// Reads the configuration file (a small local file, once, before the daemon starts).
    public static func resolve<Command>(_ arguments: [String], settings: [Setting<Command>],
                                        environment: [String: String]) async throws -> LayeredArguments {
        let named = value(of: "--config", in: arguments) ?? environment["CULL_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = named ?? defaultFile(environment: environment)
        // `none` (or /dev/null) reads no file: the environment and the flags alone.
        let noFile = path == "none" || path == "/dev/null"
        let fileProvider: EnvironmentVariablesProvider
        do {
            fileProvider = noFile
                ? EnvironmentVariablesProvider(environmentVariables: [:])
                : try await EnvironmentVariablesProvider(environmentFilePath: FilePath(path), allowMissing: named == nil)
        } catch {
            throw ConfigurationFileError(path: path, underlying: error)
        }
        let fromEnvironment = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment))
        let fromFile = ConfigReader(provider: fileProvider)

        var layered = LayeredArguments(arguments: arguments, origins: [:],
                                       file: !noFile && FileManager.default.fileExists(atPath: path) ? path : nil)
        for setting in settings {
            if arguments.contains(where: { $0 == setting.flag || $0.hasPrefix(setting.flag + "=") }) {
                layered.origins[setting.flag] = .flag
                continue
            }
            let found: (text: String, origin: Origin)? =
                fromEnvironment.string(forKey: setting.key).flatMap { $0.isEmpty ? nil : ($0, .environment) }
                ?? fromFile.string(forKey: setting.key).flatMap { $0.isEmpty ? nil : ($0, .file) }
            guard let (text, origin) = found else {
                layered.origins[setting.flag] = .builtIn
                continue
            }
            switch setting.kind {
            case .value:
                layered.arguments += [setting.flag, text]
            case .flag:
                guard ["true", "yes", "1"].contains(text.lowercased()) else {
                    guard ["false", "no", "0"].contains(text.lowercased()) else {
                        throw ConfigurationValueError(variable: setting.variable, origin: origin, text: text,
                                                      expected: "true or false")
                    }
                    layered.origins[setting.flag] = origin
                    continue
                }
                layered.arguments.append(setting.flag)
            case .list:
                for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
                    layered.arguments += [setting.flag, item]
                }
            }
            layered.origins[setting.flag] = origin
        }
        return layered
    }

    /// For an error message that names a flag this layering filled in: where its value came
    /// from (so "invalid for '--job-size'" leads to the file's line, not the command line).
    public func provenance<Command>(of message: String, settings: [Setting<Command>]) -> String? {
        for setting in settings where message.contains("'\(setting.flag)") || message.contains("\(setting.flag) ") {
            switch origins[setting.flag] {
            case .environment: return "\(setting.flag) came from the environment variable \(setting.variable)"
            case .file: return "\(setting.flag) came from \(setting.variable) in the configuration file \(file ?? "")"
            default: continue
            }
        }
        return nil
    }

    /// The long options a command's help lists, one per line: what its settings table must
    /// cover (the tests compare them).
    public static func longOptions(inHelp help: String) -> Set<String> {
        Set(help.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("--") else { return nil }
            return String(trimmed.prefix { $0 != " " && $0 != "," && $0 != "=" })
        })
    }

    static func value(of flag: String, in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == flag, index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix(flag + "=") { return String(argument.dropFirst(flag.count + 1)) }
        }
        return nil
    }

    /// `--check-config`'s report: every setting, its effective value and where it came from.
    public func report<Command>(_ command: Command, settings: [Setting<Command>]) -> String {
        var lines = ["configuration file: \(file ?? "none")", "precedence: flag > environment > file > default", ""]
        let width = settings.map(\.variable.count).max() ?? 0
        for setting in settings {
            let origin = origins[setting.flag] ?? .builtIn
            let padded = setting.variable.padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append("\(padded)  \(setting.value(command).isEmpty ? "-" : setting.value(command))  (\(setting.flag), \(origin.rawValue))")
        }
        return lines.joined(separator: "\n")
    }
}

public struct ConfigurationFileError: Error, CustomStringConvertible {
    public let path: String
    public let underlying: any Error
    public var description: String {
        "cannot read the configuration file \(path): \(underlying) (it holds KEY=value lines, as deploy/cull.env; give another with --config or $CULL_CONFIG)"
    }
}

public struct ConfigurationValueError: Error, CustomStringConvertible {
    public let variable: String
    public let origin: LayeredArguments.Origin
    public let text: String
    public let expected: String
    public var description: String {
        "\(variable)=\(text) (from the \(origin == .file ? "configuration file" : "environment")): expected \(expected)"
    }
}
