import ArgumentParser
import PagedStore
import PagedStoreFixtures
import TestSupport
import Testing

@testable import pagedb

/// Options are parsed once into typed values, in process.
@Suite(.limit(minutes: 3)) struct ParseTests {
    @Test(arguments: [("90s", 90.0), ("30m", 1800.0), ("12h", 43200.0), ("7d", 604_800.0), ("1.5h", 5400.0)])
    func durationsParseIntoSeconds(_ text: String, _ seconds: Double) throws {
        let command = try PagedDB.parseAsRoot(["trim", "home", "--db", "x.sqlite", "--older-than", text])
        #expect((command as? PagedDB.Trim)?.olderThan?.seconds == seconds)
    }

    @Test(arguments: ["7", "7w", "-1d", "d", "infd", ""])
    func malformedDurationsAreUsageErrors(_ text: String) {
        #expect(throws: (any Error).self) {
            try PagedDB.parseAsRoot(["trim", "home", "--db", "x.sqlite", "--older-than", text])
        }
        #expect(AgeOption(argument: text) == nil)
    }

    @Test func trimNeedsExactlyOneLimit() {
        #expect(throws: (any Error).self) { try PagedDB.parseAsRoot(["trim", "home", "--db", "x.sqlite"]) }
        #expect(throws: (any Error).self) {
            try PagedDB.parseAsRoot(["trim", "home", "--db", "x", "--max-rows", "1", "--older-than", "1d"])
        }
    }

    @Test func formatsAndPoliciesAreTyped() throws {
        let export = try PagedDB.parseAsRoot(["export", "home", "--format", "pages"]) as? PagedDB.Export
        #expect(export?.format.fixtureFormat == .pages)
        #expect(throws: (any Error).self) { try PagedDB.parseAsRoot(["export", "home", "--format", "xml"]) }
        let apply =
            try PagedDB.parseAsRoot(["apply", "home", "--page", "p.json", "--as", "refresh", "--gap-policy", "keepGap"])
            as? PagedDB.Apply
        #expect(apply?.gapPolicy?.policy == .keepGap)
        let seed = try PagedDB.parseAsRoot(["seed", "home", "--file", "f.json", "--format", "ndjson"]) as? PagedDB.Seed
        #expect(seed?.format?.format == .ndjson)
    }

    @Test func seedNeedsExactlyOneSource() {
        #expect(throws: (any Error).self) { try PagedDB.parseAsRoot(["seed", "home"]) }
        #expect(throws: (any Error).self) {
            try PagedDB.parseAsRoot(["seed", "home", "--file", "a", "--generate", "3"])
        }
        #expect(throws: (any Error).self) {
            try PagedDB.parseAsRoot(["seed", "home", "--generate", "3", "--page-size", "0"])
        }
    }

    @Test func failuresMapToTheDocumentedStatuses() {
        #expect(CommandFailure.report(for: CommandFailure.unknownFeed("x"))?.status == .unknownFeed)
        #expect(CommandFailure.report(for: ValidationError("no")) == nil, "usage errors are ArgumentParser's")
    }
}
