import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

extension PagedDB {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a feed to stdout in a format that seed reads back.",
            discussion: """
                seed → export → seed into a new file → export gives identical output. `pages` keeps the \
                page boundaries and cursors. Opens the file read-only.

                Example:
                  pagedb export home --db cache.sqlite --format ndjson > home.ndjson
                """)

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case json, ndjson, pages

            /// The library's format.
            var fixtureFormat: FixtureFormat {
                switch self {
                case .json: .json
                case .ndjson: .ndjson
                case .pages: .pages
                }
            }
        }

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The feed's key.") var feed: String
        @Option(name: .long, help: "json (an array of items), ndjson, or pages (with cursors).") var format = Format
            .json

        func run() async throws {
            var buffer = Data()
            // One read transaction for the whole export: a consistent snapshot while others write.
            try database.reading(feed: feed) { store, record in
                try store.export(record, format: format.fixtureFormat) { chunk in
                    buffer.append(chunk)
                    if buffer.count > 1 << 16 {
                        FileHandle.standardOutput.write(buffer)
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
            }
            FileHandle.standardOutput.write(buffer)
        }
    }
}
