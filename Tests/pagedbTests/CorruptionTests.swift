import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Valid caches mutated outside SQLite: `pagedb` and the library never crash or hang; they answer
/// with a typed error (or a clean verify), and a damaged cache can be moved aside and started again.
///
/// `PAGEDSTORE_CORRUPTION_MUTANTS=N` sets the number of mutants (default 200; long mode 1,000).
@Suite(.limit(minutes: 15), .plainRunOnly) struct CorruptionTests {
    static var mutants: Int {
        ProcessInfo.processInfo.environment["PAGEDSTORE_CORRUPTION_MUTANTS"].flatMap(Int.init) ?? 200
    }

    enum Mutation: CaseIterable {
        case headerBytes, pageBytes, walBytes, truncate, zeroFill, picture, deleteHotWAL
    }

    @Test func mutatedCachesGiveTypedErrorsNeverCrashes() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let closed = scratch.path("closed.sqlite")
        let crashed = scratch.path("crashed.sqlite")
        try Self.makeCaches(closed: closed, crashed: crashed)
        var random = SplitMix64(seed: 0xC0FFEE)
        var outcomes: [Int32: Int] = [:]
        for index in 0..<Self.mutants {
            let mutation = Mutation.allCases[index % Mutation.allCases.count]
            let path = scratch.path("mutant-\(index).sqlite")
            // The log's mutations act on a crashed cache (-wal and -shm left behind); the others on a closed one.
            try Self.copy([.walBytes, .deleteHotWAL].contains(mutation) ? crashed : closed, to: path)
            try Self.mutate(path, mutation, &random)
            for command in [["verify"], ["feeds", "--json"], ["items", "home", "--limit", "500"]] {
                let result = try await PagedDBBinary.run(command + ["--db", path], timeout: 20)
                #expect(!result.timedOut, "mutant \(index) (\(mutation)): \(command[0]) hung")
                // 66 (no cache) is right where the mutation left an empty database: a truncation to nothing,
                // or a hot WAL deleted or damaged before its first checkpoint (SQLite stops replaying a log
                // at the first frame whose checksum fails, so later commits are lost, by design).
                // With more than one migration, the lost commits may be the later migrations: the file then
                // reads as an older schema, which a read-only command reports the same way.
                let emptied =
                    mutation != .picture
                    && (result.stderr.contains("is empty")
                        || ([.walBytes, .deleteHotWAL].contains(mutation) && result.stderr.contains("older schema")))
                #expect(
                    ([0, 1, 2, 3, 4, 74].contains(result.status) || (result.status == 66 && emptied))
                        && !result.crashed,
                    "mutant \(index) (\(mutation)): \(command[0]) exited \(result.status): \(result.stderr)")
                if command[0] == "verify" { outcomes[result.status, default: 0] += 1 }
                if result.status != 0 && result.status != 1 {
                    #expect(result.stderr.hasPrefix("pagedb: error:"), "one clear line: \(result.stderr)")
                }
            }
            try Self.recover(path)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        #expect(outcomes.values.reduce(0, +) == Self.mutants)
        #expect(outcomes[2, default: 0] > 0, "some mutants are reported as damaged: \(outcomes)")
        print("corruption outcomes (verify exit status: mutants):", outcomes.sorted { $0.key < $1.key })
    }

    /// The app's recovery: open; on a damaged-file error, move the cache aside and start a new one.
    static func recover(_ path: String) throws {
        do {
            // Opening a feed reads its first screen: damage there surfaces here.
            _ = try FeedStore(path: path).feed(
                "home", source: ScriptedSource<Row> { _ in Page(items: [], olderCursor: nil) })
        } catch let error as StorageError where [.notADatabase, .corrupt].contains(error.kind) {
            let aside = try #require(try FeedStore.discardDamagedCache(at: path))
            #expect(FileManager.default.fileExists(atPath: aside))
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            let fresh = try FeedStore(path: path)
            _ = try fresh.feed("home", source: ScriptedSource<Row> { _ in Page(items: [], olderCursor: nil) })
        } catch is StorageError, is FeedError {
            // Another typed error (a damaged page met while reading): typed, not a crash.
        }
    }

    struct Row: FeedItem, Codable { let id: String }

    /// A cache of a few hundred rows, closed cleanly, and a copy taken while it was open: what a crash
    /// leaves (its last commits only in the -wal file, with the -shm index beside it).
    static func makeCaches(closed: String, crashed: String) throws {
        let building = closed + ".build"
        do {
            let queue = try DatabaseQueue(path: building)
            try queue.write { store in
                var feed = try store.ensureFeed(key: "home")
                for page in 0..<8 {
                    let items = (0..<50).map {
                        EncodedItem(
                            itemID: "p\(page)-\($0)",
                            payload: Data(
                                #"{"id":"p\#(page)-\#($0)","text":"\#(String(repeating: "x", count: 120))"}"#.utf8))
                    }
                    let write = PageWrite(
                        request: .older, requestCursor: feed.oldestCursor, olderCursor: "c\(page)", newerCursor: nil)
                    try store.appendPage(items, page: write, to: &feed)
                }
            }
            try copy(building, to: crashed)
        }
        try copy(building, to: closed)
    }

    static func copy(_ source: String, to destination: String) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
            try? FileManager.default.removeItem(atPath: destination + suffix)
            try FileManager.default.copyItem(atPath: source + suffix, toPath: destination + suffix)
        }
    }

    static func mutate(_ path: String, _ mutation: Mutation, _ random: inout SplitMix64) throws {
        let url = URL(fileURLWithPath: path)
        var data = try Data(contentsOf: url)
        switch mutation {
        case .headerBytes:
            for _ in 0..<3 {
                data[Int.random(in: 0..<100, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
        case .pageBytes:
            let page = Int.random(in: 0..<(data.count / 4096), using: &random)
            for _ in 0..<8 {
                data[page * 4096 + Int.random(in: 0..<4096, using: &random)] ^= UInt8.random(
                    in: 1...255, using: &random)
            }
        case .walBytes:
            let walURL = URL(fileURLWithPath: path + "-wal")
            if var wal = try? Data(contentsOf: walURL), !wal.isEmpty {
                for _ in 0..<8 {
                    wal[Int.random(in: 0..<wal.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                }
                try wal.write(to: walURL)
            }
        case .truncate:
            data = data.prefix(Int.random(in: 0..<data.count, using: &random))
        case .zeroFill:
            let start = Int.random(in: 0..<data.count, using: &random)
            let end = min(data.count, start + Int.random(in: 1...8192, using: &random))
            data.replaceSubrange(start..<end, with: Data(count: end - start))
        case .picture:
            data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x42, count: 2048)
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
        case .deleteHotWAL:
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
        }
        try data.write(to: url)
    }
}
