import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Items: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a feed's rows in display order.",
            discussion: """
                Each row shows its index, section, id and payload (shortened in the table, whole with \
                --json or --ndjson). Opens the file read-only.

                Example:
                  pagedb items home --db app-cache.sqlite --from 100 --limit 20
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions
        @Flag(name: .long, help: "Print one JSON object per row instead of a table.") var ndjson = false
        @Option(name: .long, help: "How many rows to print.") var limit = 50
        @Option(name: .long, help: "The first row to print (0 is the top).") var from = 0
        @Argument(help: "The feed's key.") var feed: String

        func validate() throws {
            guard limit >= 0 else { throw ValidationError("--limit must be 0 or more.") }
            guard from >= 0 else { throw ValidationError("--from must be 0 or more.") }
            guard !(ndjson && output.json) else { throw ValidationError("Choose one of --json and --ndjson.") }
        }

        func run() async throws {
            let (record, rows) = try database.reading(feed: feed) { store, record in
                (record, try store.window(of: record, from: from == 0 ? .top : .row(from), limit: limit))
            }
            let objects = rows.enumerated().map { offset, row in
                ItemJSON(
                    row: from + offset, id: row.itemID, section: row.section, payload: JSONValue(payload: row.payload))
            }
            if output.json { return try Terminal.printJSON(objects) }
            if ndjson {
                for object in objects { try Terminal.printJSONLine(object) }
                return
            }
            print(
                Terminal.table(
                    ["ROW", "SECTION", "ID", "PAYLOAD"],
                    rows.enumerated().map { offset, row in
                        [
                            "\(from + offset)", output.cell(row.section, 16), output.cell(row.itemID, 24),
                            output.cell(String(decoding: row.payload, as: UTF8.self), 80),
                        ]
                    }))
            if rows.count < record.rowCount {
                print("(\(rows.count) of \(record.rowCount) rows; use --from and --limit for others)")
            }
        }
    }
}
