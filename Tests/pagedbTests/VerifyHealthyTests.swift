import Foundation
import TestSupport
import Testing

/// `verify` finds no violation on a healthy cache.
@Suite(.limit(minutes: 3), .plainRunOnly) struct VerifyHealthyTests {
    @Test(arguments: ["replace", "keepGap"])
    func aRefreshedSeededFeedVerifiesClean(_ policy: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--generate", "120"]).status == 0)
        let page = try scratch.file(
            "page.json", #"{"items": [{"id": "new1"}, {"id": "new2"}], "next_cursor": "older-than-new2"}"#)
        let applied = try await PagedDBBinary.run([
            "apply", "home", "--db", db, "--page", page, "--as", "refresh", "--gap-policy", policy,
        ])
        #expect(applied.status == 0, "\(applied.stderr)")
        let verify = try await PagedDBBinary.run(["verify", "--db", db])
        #expect(verify.status == 0, "\(verify.stdout)")
    }
}
