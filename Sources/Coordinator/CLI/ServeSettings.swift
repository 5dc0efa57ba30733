import Shared

extension ServeCommand {
    /// Every setting of `cull serve`, as a flag, an environment variable and a key of the
    /// configuration file (`LayeredArguments`; deploy/cull.env documents them).
    static let settings: [Setting<ServeCommand>] = [
        Setting("--db", "CULL_DB") { $0.db },
        Setting("--work", "CULL_WORK") { $0.work },
        Setting("--control", "CULL_CONTROL") { $0.control },
        Setting("--library-root", "CULL_LIBRARY_ROOTS", .list) { $0.libraryRoots.joined(separator: ",") },
        Setting("--key", "CULL_SERVE_KEY") { $0.key ?? "" },
        Setting("--authorized", "CULL_AUTHORIZED") { $0.authorized ?? "" },
        Setting("--insecure", "CULL_INSECURE", .flag) { "\($0.insecure)" },
        Setting("--metrics", "CULL_METRICS") { $0.metrics ?? "" },
        Setting("--prefer", "CULL_PREFER") { $0.prefer ?? KeeperPolicy.defaultRules.map(\.rawValue).joined(separator: ",") },
        Setting("--job-size", "CULL_JOB_SIZE") { "\($0.options.jobSize)" },
        Setting("--fetch-timeout", "CULL_FETCH_TIMEOUT") { $0.options.fetchTimeout.argumentText },
        Setting("--job-deadline", "CULL_JOB_DEADLINE") { $0.options.jobDeadline.argumentText },
        Setting("--grouping-timeout", "CULL_GROUPING_TIMEOUT") { $0.options.groupingTimeout.argumentText },
        Setting("--max-attempts", "CULL_MAX_ATTEMPTS") { "\($0.options.maxAttempts)" },
        Setting("--max-megapixels", "CULL_MAX_MEGAPIXELS") { "\($0.options.maxMegapixels)" },
        Setting("--max-file-mb", "CULL_MAX_FILE_MB") { "\($0.options.maxFileMb)" },
        Setting("--threshold", "CULL_THRESHOLD") { "\($0.options.threshold)" },
        Setting("--similar-window", "CULL_SIMILAR_WINDOW") { $0.options.similarWindow.argumentText },
        Setting("--previews", "CULL_PREVIEWS") { $0.options.previews.rawValue },
        Setting("--log-level", "CULL_LOG_LEVEL") { $0.daemonOptions.logLevel.map { "\($0)" } ?? "info" },
        Setting("--watchdog", "CULL_WATCHDOG") { $0.daemonOptions.watchdog?.argumentText ?? "2s" },
        Setting("--heartbeat", "CULL_HEARTBEAT") { $0.daemonOptions.heartbeat.argumentText },
        Setting("--liveness", "CULL_LIVENESS") { "\($0.daemonOptions.liveness)" },
    ]
}
