import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Values edited into the file with SQLite itself: commands fail with a typed
/// error instead of trapping, and `verify` reports each value as a violation.
@Suite(.limit(minutes: 3), .plainRunOnly) struct HostileValuesTests {
    struct Case: Sendable, CustomStringConvertible {
        let edit: String
        let command: [String]
        let rule: String
        var description: String { "\(edit) → \(command.first ?? "")" }
    }

    static let cases: [Case] = [
        Case(
            edit: "UPDATE feed SET generation = 9223372036854775807",
            command: ["apply", "home", "--as", "refresh"], rule: "generation"),
        Case(
            edit: "UPDATE feed SET last_refresh_at = 9223372036854775807",
            command: ["seed", "home", "--generate", "3", "--seed", "2"], rule: "last_refresh_at"),
        Case(
            edit: "UPDATE feed SET last_refresh_at = 9223372036854775807",
            command: ["trim", "home", "--older-than", "7d"], rule: "last_refresh_at"),
        Case(
            edit: """
                UPDATE item SET position = 9223372036854775000 WHERE position = (SELECT max(position) FROM item);
                UPDATE feed SET bottom_position = 9223372036854775000
                """,
            command: ["seed", "home", "--generate", "3", "--seed", "2"], rule: "position"),
        Case(
            edit: "UPDATE item SET flags = 5 WHERE position = (SELECT min(position) FROM item)",
            command: ["seed", "home", "--generate", "3", "--seed", "2"], rule: "flags"),
        Case(
            edit: "UPDATE feed SET row_count = 9223372036854775807",
            command: ["seed", "home", "--generate", "3", "--seed", "2"],
            rule: "row_count"),
    ]

    @Test(arguments: cases)
    func anEditedValueFailsCleanlyAndVerifyNamesIt(_ hostile: Case) async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--generate", "5"]).status == 0)
        try Connection(path: db, mode: .readWrite).execute(hostile.edit)
        let page = try scratch.file("page.json", #"{"items": [{"id": "new"}], "next_cursor": null}"#)
        let arguments = hostile.command + ["--db", db] + (hostile.command[0] == "apply" ? ["--page", page] : [])
        let result = try await PagedDBBinary.run(arguments)
        #expect(!result.crashed, "\(hostile): crashed")
        #expect([0, 2].contains(result.status), "\(hostile): exit \(result.status) \(result.stderr)")
        let verify = try await PagedDBBinary.run(["verify", "--db", db, "--json"])
        #expect(verify.status == 1, "\(hostile): verify exit \(verify.status) \(verify.stdout)")
        #expect(verify.stdout.contains(hostile.rule), "\(hostile): \(verify.stdout)")
    }
}
