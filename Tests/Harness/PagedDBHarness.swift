import ArgumentParser
import PagedStore

/// `pagedb-harness`: the processes the reliability tests start, kill at any instant and read. Built
/// for the tests only: no product of the package ships it, and `pagedb` holds user commands only.
@main
struct PagedDBHarness: AsyncParsableCommand {
    /// The root's help, which says what the tools are for, and its four tools.
    static let configuration = CommandConfiguration(
        commandName: "pagedb-harness",
        abstract: "Test tools for PagedStore's reliability tests; not part of pagedb and not shipped.",
        discussion: """
            Each command is a process that the pagedb tests start, kill with SIGKILL at a chosen instant, \
            or run beside pagedb on one file, and whose printed lines they check (RELIABILITY.md tells \
            which test uses which). They write a cache without end or hold its lock: give them a scratch \
            file, never an app's cache. For inspecting and changing a cache, use pagedb.

            Example:
              swift run pagedb-harness crash-writer --db /tmp/crash.sqlite --operations 30
            """,
        version: PagedStoreVersion.description,
        subcommands: [CrashWriter.self, RandomWriter.self, OutboxWriter.self, HoldLock.self]
    )
}

/// `--db PATH`, the file every harness command writes. Required: unlike pagedb, the harness takes no
/// path from the environment, so that a `PAGEDB_DATABASE` set for pagedb never points it at a cache.
struct HarnessDatabase: ParsableArguments {
    /// The cache file the command writes.
    @Option(name: .customLong("db"), help: ArgumentHelp("The cache file to write (a scratch file).", valueName: "path"))
    var path: String
}
