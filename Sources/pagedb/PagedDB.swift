import ArgumentParser
import Foundation
import PagedStore

/// `pagedb`: inspect a PagedStore cache, debug its state and seed fixtures.
@main
struct PagedDB: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pagedb",
        abstract: "Inspect a PagedStore cache file, debug its state and seed fixtures.",
        discussion: """
            Commands that only look (feeds, show, stats, items, export, verify, schema, watch) open the file read-only \
            and never create or change it. Give the file with --db PATH or the PAGEDB_DATABASE variable.

            Start with: pagedb demo
            """,
        version: PagedStoreVersion.description,
        subcommands: [
            Demo.self, Feeds.self, Show.self, Stats.self, Items.self, Seed.self, Export.self, Apply.self, Verify.self,
            Trim.self, Delete.self, Vacuum.self, Migrate.self, Schema.self, Bench.self, Sync.self, Watch.self,
            Outbox.self, Search.self, Reindex.self,
        ]
    )

    /// Parses the command line, runs the command, and reports every failure here, once: one line on
    /// stderr (`pagedb: error: …`) and the exit status the "Using pagedb" article documents. Usage errors are one
    /// line too, naming the help to read; `--help` and `--version` print as usual.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if let failure = CommandFailure.report(for: error) {
                Terminal.printError(failure.message)
                Foundation.exit(failure.status.rawValue)
            }
            let code = exitCode(for: error)
            let message = message(for: error)
            guard code != .success, code != .validationFailure || !message.isEmpty else { exit(withError: error) }
            if !message.isEmpty {
                let line = message.split(separator: "\n").first.map(String.init) ?? message
                Terminal.printError(
                    Terminal.escape(line) + (code == .validationFailure ? " (see pagedb help)" : ""))
            }
            Foundation.exit(code.rawValue)
        }
    }
}
