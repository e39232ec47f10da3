import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Opening files that are not caches: every case is a typed error, no crash, and the file unchanged.
@Suite(.limit(minutes: 3)) struct OpeningTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x42, count: 4096)

    @Test func aPictureIsNotADatabase() throws {
        let path = directory.path("picture.png")
        try Self.png.write(to: URL(fileURLWithPath: path))
        let before = FileFingerprint(path)
        let error = #expect(throws: StorageError.self) { try DatabaseQueue(path: path) }
        #expect(error?.kind == .notADatabase)
        #expect(FileFingerprint(path) == before)
    }

    @Test func randomBytesAreNotADatabase() throws {
        let path = directory.path("random.db")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(
            to: URL(fileURLWithPath: path))
        let before = FileFingerprint(path)
        let error = #expect(throws: StorageError.self) { try DatabaseQueue(path: path) }
        #expect(error?.kind == .notADatabase)
        #expect(FileFingerprint(path) == before)
    }

    @Test func aTruncatedDatabaseIsATypedError() throws {
        let path = directory.path("truncated.db")
        try Self.makeCache(at: path)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(700).write(to: URL(fileURLWithPath: path))
        let before = FileFingerprint(path)
        let error = #expect(throws: StorageError.self) { try DatabaseQueue(path: path) }
        #expect(error.map { [.notADatabase, .corrupt].contains($0.kind) } == true, "got \(String(describing: error))")
        #expect(FileFingerprint(path) == before)
    }

    @Test func aDirectoryIsRefused() throws {
        let path = directory.path("folder.db")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = #expect(throws: StorageError.self) { try DatabaseQueue(path: path) }
        #expect(error?.kind == .cannotOpen)
        #expect(error?.message.contains("directory") == true)
    }

    @Test func anEmptyFileBecomesANewCache() throws {
        let path = directory.path("empty.db")
        try Data().write(to: URL(fileURLWithPath: path))
        let queue = try DatabaseQueue(path: path)
        let feed = try queue.write { try $0.ensureFeed(key: "home") }
        #expect(feed.rowCount == 0)
    }

    @Test func anotherProgramsDatabaseIsRefusedUntouched() throws {
        let path = directory.path("foreign.db")
        do {
            let connection = try Connection(path: path, mode: .readWrite)
            try connection.execute("CREATE TABLE notes (body TEXT)")
        }
        let before = FileFingerprint(path)
        let error = #expect(throws: StorageError.self) { try DatabaseQueue(path: path) }
        #expect(error?.kind == .foreignDatabase)
        #expect(FileFingerprint(path) == before)
    }

    @Test func aNewerSchemaIsRefusedByteForByte() throws {
        let path = directory.path("newer.db")
        try Self.makeCache(at: path)
        do {
            let connection = try Connection(path: path, mode: .readWrite)
            try connection.execute("PRAGMA user_version = 999")
        }
        let before = FileFingerprint(path)
        for mode in [Connection.Mode.readWrite, .readOnly] {
            let error = #expect(throws: StorageError.self) { try PageStore(path: path, mode: mode) }
            #expect(error?.kind == .schemaTooNew)
            #expect(error?.message.contains("999") == true)
        }
        #expect(FileFingerprint(path) == before)
    }

    @Test func fileURIsAreRefused() {
        let error = #expect(throws: StorageError.self) { try DatabaseQueue(path: "file:cache.db?nolock=1") }
        #expect(error?.kind == .invalidArgument)
    }

    @Test func newCachesAreReadableByTheirOwnerOnly() throws {
        let path = directory.path("private.db")
        _ = try DatabaseQueue(path: path)
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test func aReadOnlyOpenOfAMissingFileCreatesNothing() {
        let path = directory.path("missing.db")
        let error = #expect(throws: StorageError.self) { try PageStore(path: path, mode: .readOnly) }
        #expect(error?.kind == .cannotOpen)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aReadOnlyOpenOfAnIdleCacheLeavesItsFilesIdentical() throws {
        let path = directory.path("idle.db")
        try Self.makeCache(at: path)
        let before = FileFingerprint(path)
        do {
            let store = try PageStore(path: path, mode: .readOnly)
            #expect(try store.feeds().map(\.key) == ["home"])
        }
        #expect(FileFingerprint(path) == before, "before: \(before), after: \(FileFingerprint(path))")
    }

    /// A closed cache with one feed of ten rows.
    static func makeCache(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try store.appendPage(
                Fixtures.items("a", count: 10), page: Fixtures.olderPage(from: nil, to: "c1"), to: &feed)
        }
    }
}
