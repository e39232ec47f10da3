import ArgumentParser
import PagedStore

/// `pagedb`: inspect a PagedStore cache, debug its state and seed fixtures.
@main
struct PagedDB: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pagedb",
        abstract: "Inspect a PagedStore cache file, debug its state and seed fixtures.",
        discussion: """
            Commands that only look (feeds, show, items, export, verify, schema) open the file read-only \
            and never create or change it. Give the file with --db PATH or the PAGEDB_DATABASE variable.

            Start with: pagedb demo
            """,
        version: PagedStoreVersion.description,
        subcommands: [
            Demo.self, Feeds.self, Show.self, Items.self, Seed.self, Export.self, Apply.self, Verify.self, Trim.self,
            Delete.self, Migrate.self, Schema.self, Bench.self, CrashWriter.self, HoldLock.self, Sync.self,
        ]
    )
}
