import Foundation
import TestSupport
import Testing

/// A command that fails changes nothing: not the file, not its side
/// files, not the folder.
@Suite(.limit(minutes: 3), .plainRunOnly) struct FailingCommandsTests {
    /// The names and bytes of every file in the folder.
    func folder(_ scratch: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) {
            var isDirectory: ObjCBool = false
            let path = scratch.path(name)
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                continue
            }
            files[name] = FileManager.default.contents(atPath: path) ?? Data()
        }
        return files
    }

    @Test func aWriteRefusedOnAReadOnlyFileLeavesNoSideFilesAndLaterWritesWork() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        scratch.giveToUnprivilegedUser()
        let db = scratch.path("cache.sqlite")
        #expect(
            try await PagedDBBinary.run(["seed", "home", "--db", db, "--generate", "5"], unprivileged: true).status == 0
        )
        chmod(db, 0o400)
        let before = try folder(scratch)
        let refused = try await PagedDBBinary.run(["seed", "more", "--db", db, "--generate", "5"], unprivileged: true)
        #expect(refused.status == 74, "\(refused.stderr)")
        #expect(refused.stderr.contains("read-only"), "\(refused.stderr)")
        #expect(try folder(scratch) == before, "no -wal or -shm left behind")
        let read = try await PagedDBBinary.run(["feeds", "--db", db], unprivileged: true)
        #expect(read.status == 0, "a read-only file is still read: \(read.stderr)")
        #expect(try folder(scratch) == before, "reading a read-only file leaves nothing behind")
        chmod(db, 0o600)
        let later = try await PagedDBBinary.run(["seed", "more", "--db", db, "--generate", "5"], unprivileged: true)
        #expect(later.status == 0, "writes work again once the file is writable: \(later.stderr)")
    }

    @Test(arguments: [["trim", "home", "--max-rows", "1"], ["delete", "home"], ["apply", "home", "--as", "next"]])
    func aCommandOnAnEmptyFileChangesNothing(_ command: [String]) async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: db, contents: Data()))
        let page = try scratch.file("page.json", #"{"items": [{"id": 1}], "next_cursor": null}"#)
        let arguments = command + ["--db", db] + (command[0] == "apply" ? ["--page", page] : [])
        let before = try folder(scratch)
        let result = try await PagedDBBinary.run(arguments)
        #expect(result.status == 4, "\(command): \(result.stderr)")
        #expect(try folder(scratch) == before, "\(command) changed the folder")
    }

    @Test func applyNextOnAMissingFileCreatesNothing() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let page = try scratch.file("page.json", #"{"items": [{"id": 1}], "next_cursor": null}"#)
        let db = scratch.path("missing.sqlite")
        let result = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "next"])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func applyNextOnAnEndedFeedSaysWhyAndChangesNothing() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--generate", "3"]).status == 0)
        let page = try scratch.file("page.json", #"{"items": [{"id": "new"}], "next_cursor": null}"#)
        let before = scratch.fingerprint(db)
        let result = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "next"])
        #expect(result.status == 6, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("has ended"), "\(result.stderr)")
        #expect(scratch.fingerprint(db) == before)
    }

    @Test func aDanglingSymlinkIsRefusedAndKept() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let link = scratch.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.path("nowhere.sqlite"))
        let result = try await PagedDBBinary.run(["seed", "home", "--db", link, "--generate", "3"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
        let kept = try? FileManager.default.destinationOfSymbolicLink(atPath: link)
        #expect(kept == scratch.path("nowhere.sqlite"), "the link is still a link")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("nowhere.sqlite")))
    }

    @Test func aSymlinkedFolderInThePathIsFollowed() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        try FileManager.default.createDirectory(atPath: scratch.path("real"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("alias"), withDestinationPath: scratch.path("real"))
        let db = scratch.path("alias/cache.sqlite")
        let seeded = try await PagedDBBinary.run(["seed", "home", "--db", db, "--generate", "3"])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("real/cache.sqlite")))
        #expect(try await PagedDBBinary.run(["items", "home", "--db", db]).status == 0)
    }

    @Test func migrateCreatesAMissingCacheAndSaysSo() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("new.sqlite")
        let dryRun = try await PagedDBBinary.run(["migrate", "--db", db, "--dry-run"])
        #expect(dryRun.status == 0 && !FileManager.default.fileExists(atPath: db), "\(dryRun.stderr)")
        let result = try await PagedDBBinary.run(["migrate", "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Created a new cache"), "\(result.stdout)")
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }
}
