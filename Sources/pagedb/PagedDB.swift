import ArgumentParser
import PagedStore

/// `pagedb`: inspect a PagedStore cache, debug its state and seed fixtures.
@main
struct PagedDB: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pagedb",
        abstract: "Inspect a PagedStore cache file, debug its state and seed fixtures.",
        version: PagedStoreVersion.description,
        subcommands: []
    )
}
