import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Search through the store after random sequences of every kind of write: after each step, random
/// queries find exactly what a plain scan of the rows the file holds finds (pending edits' text
/// included), and an open live list of results shows the same, by exact changes.
///
/// `PAGEDSTORE_PROPERTY_SEQUENCES` sets how many sequences run (default 8, a tenth of the value).
@Suite(.limit(minutes: 3)) struct SearchFollowsEveryWriteTests {
    static let vocabulary = ["swift", "swiftly", "kotlin", "café", "cafe", "rust", "Tokyo", "actor", "act"]
    static let feeds = ["home", "local"]

    static var seeds: [UInt64] {
        let count = ProcessInfo.processInfo.environment["PAGEDSTORE_PROPERTY_SEQUENCES"].flatMap(Int.init) ?? 80
        return (0..<UInt64(max(1, count / 10))).map { 0x5EA2_C400 + $0 }
    }

    @Test func searchFindsWhatAScanOfTheRowsFindsAfterEveryWrite() async throws {
        for seed in Self.seeds { try await Self.run(seed: seed) }
    }

    static func text(_ random: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...4, using: &random)).map { _ in vocabulary.randomElement(using: &random) ?? "" }
            .joined(separator: Bool.random(using: &random) ? " " : ", ")
    }

    static func run(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let test = try FeedTestCase()
        let store = try test.store()
        var servers: [String: Locked<[Toot]>] = [:]
        var feeds: [String: Feed<Toot>] = [:]
        for key in Self.feeds {
            let server = Locked<[Toot]>([])
            servers[key] = server
            feeds[key] = try store.feed(
                key, source: ScriptedSource<Toot> { _ in Page(items: server.value, olderCursor: nil) },
                policy: FeedPolicy(refreshOnOpen: .never))
        }
        let watched = "swi"
        let list = try store.searchList(watched, as: Toot.self, pageSize: 10_000)
        let recorder = StreamRecorder(await list.snapshots)
        var next = 0
        for step in 0..<40 {
            let key = Self.feeds.randomElement(using: &random) ?? "home"
            guard let feed = feeds[key], let server = servers[key] else { continue }
            let shown = try test.itemsOnDisk(of: Toot.self, key: key)
            let target = shown.randomElement(using: &random)
            let content = text(&random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0, 1:
                next += 1
                server.value.insert(Toot(id: "t\(next)", content: content), at: 0)
                await feed.refresh()
            case 2:
                if let index = server.value.indices.randomElement(using: &random) {
                    server.value[index].content = content
                }
                await feed.refresh()
            case 3:
                if let index = server.value.indices.randomElement(using: &random) { server.value.remove(at: index) }
                await feed.refresh()
            case 4:
                if var item = target {
                    item.content = content
                    _ = try await feed.update(item)
                }
            case 5:
                if let target { _ = try await feed.remove(id: target.id) }
            case 6:
                if let target {
                    let fails = Bool.random(using: &random)
                    _ = try? await feed.edit(id: target.id, { $0.content = content }) { _ in
                        if fails { throw URLError(.timedOut) }
                    }
                }
            default:
                if let target {
                    _ = try await feed.enqueue("edit", id: target.id, argument: content) { $0.content = content }
                }
            }
            let context = "seed \(seed) step \(step)"
            let documents = try Self.feeds.flatMap { key in
                try test.itemsOnDisk(of: Toot.self, key: key).map { (key: key, item: $0) }
            }
            for _ in 0..<3 {
                var typed = text(&random)
                if Bool.random(using: &random) {
                    typed = String(typed.prefix(Int.random(in: 1...typed.count, using: &random)))
                }
                let scope = Bool.random(using: &random) ? nil : [key]
                let expected = Self.scan(documents, typed, in: scope)
                let found = Set(try store.search(typed, as: Toot.self, in: scope, limit: 10_000).map(\.listID))
                #expect(found == expected, "\(context): \"\(typed)\" in \(scope ?? ["every feed"])")
            }
            let expected = Self.scan(documents, watched, in: nil)
            let snapshots = await recorder.snapshots { Set($0.results.map(\.listID)) == expected }
            SearchSnapshotChecks.check(snapshots, context)
        }
    }

    /// The list ids of the documents whose text holds every term of `typed`, by a plain scan.
    static func scan(_ documents: [(key: String, item: Toot)], _ typed: String, in feeds: [String]?) -> Set<String> {
        let terms = Reference.terms(in: typed, prefixLast: true)
        guard !terms.isEmpty else { return [] }
        return Set(
            documents.filter { document in
                (feeds?.contains(document.key) ?? true)
                    && Reference.matches(
                        terms, Reference.words(in: document.item.content + "\n" + document.item.account.display_name))
            }.map { $0.key + "\u{1F}" + $0.item.id })
    }
}
