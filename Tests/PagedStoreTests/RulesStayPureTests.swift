import Foundation
import TestSupport
import Testing

/// The rules under `Sources/PagedStore/Rules` are pure: facts come in, a plan or actions come out.
/// None may reach SQLite, the write path, live following, an actor, a task, a lock or the clock;
/// the drivers that perform their plans do. The rules share the engine's value types (records,
/// public models), so they live in the library's target and this test keeps the boundary.
@Suite(.limit(minutes: 3)) struct RulesStayPureTests {
    static let rulesFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/PagedStore/Rules")

    @Test func noRuleNamesStorageTheWritePathAnActorOrTheClock() throws {
        let files = try Self.swiftFiles(in: Self.rulesFolder)
        #expect(files.count > 20, "the rules were found")
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (line, name) in RuleBoundary.violations(in: text) {
                found.append("\(file.lastPathComponent):\(line): \(name)")
            }
        }
        #expect(found.isEmpty, "rules that are not pure:\n\(found.joined(separator: "\n"))")
    }

    @Test(arguments: [
        ("let now = Date()", "Date()"),
        ("if deadline < ContinuousClock.now {", ".now"),
        ("func plan(in store: PageStore) {", "PageStore"),
        ("actor Planner {", "actor"),
        ("Task { await run() }", "Task"),
        ("try StoreWriter(queue: queue, budget: nil, clock: .system)", "StoreWriter"),
        ("LiveFeeds.shared.tell(writeOf: key, by: 1, in: file)", "LiveFeeds"),
        ("sqlite3_step(statement)", "sqlite3_step"),
    ])
    func aPlantedViolationIsFound(line: String, name: String) {
        #expect(RuleBoundary.violations(in: "struct Rule {\n    \(line)\n}\n").map(\.name) == [name])
    }

    @Test func commentsAndStringsMayNameAnything() {
        let text = """
            /// Pure: ``FeedWriter`` performs it on a ``PageStore`` at `Date()`.
            let message = "PageStore actor Task Date()"  // StoreWriter
            """
        #expect(RuleBoundary.violations(in: text).isEmpty)
    }

    static func swiftFiles(in folder: URL) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return []
        }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }
}

/// What a pure rule may not name in its code (comments and string literals aside).
enum RuleBoundary {
    /// The names that reach storage, the write path, live following, concurrency or the clock.
    static var forbidden: Regex<AnyRegexOutput>? {
        try? Regex(
            #"\b(PageStore|Connection|Statement|DatabaseQueue|StorageExecutor|CSQLite|sqlite3_\w+|StoreWriter|StoreClock|FeedWriter|OutboxWriter|LiveFeeds|FileChangeSignal|FileChangeWatcher|LeaseHolders|ProcessLiveness|actor|Task|DispatchQueue|Thread|NSLock|ProcessInfo|FileManager|URLSession)\b|Date\(\)|Date\.now|\.now\b|ContinuousClock\(\)|SuspendingClock"#
        ).wordBoundaryKind(.simple)  // Unicode's boundaries take `LiveFeeds.shared` for one word
    }

    /// Each forbidden name in `text`, with its line number (from 1).
    static func violations(in text: String) -> [(line: Int, name: String)] {
        guard let forbidden = Self.forbidden else { return [(0, "the pattern does not compile")] }
        var found: [(line: Int, name: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.replacing(#/"[^"]*"/#, with: "\"\"").replacing(#/\/\/.*/#, with: "")
            for match in code.matches(of: forbidden) {
                found.append((index + 1, String(code[match.range])))
            }
        }
        return found
    }
}
