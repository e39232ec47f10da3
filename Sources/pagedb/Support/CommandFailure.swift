import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

/// A failure `pagedb` reports as one line on stderr, with an exit status of its own.
struct CommandFailure: Error, CustomStringConvertible {
    /// Exit statuses, documented in the "Using pagedb" article.
    enum Status: Int32 {
        /// `pagedb verify` found violations.
        case violations = 1
        /// The file is not a database, is damaged, or belongs to another program.
        case damaged = 2
        /// The file's schema is newer than this `pagedb`.
        case schemaTooNew = 3
        /// The feed does not exist in the file.
        case unknownFeed = 4
        /// Another process held a lock for longer than the busy timeout.
        case busy = 5
        /// An explicit `apply` could not change anything (the feed has ended); the reason is printed.
        case nothingApplied = 6
        /// The command would drop queued edits not yet sent, and was not asked to; nothing changed.
        case queuedEditsKept = 7
        /// The command line is wrong, or names a path that is refused (EX_USAGE).
        case usage = 64
        /// A fixture or page file is invalid (EX_DATAERR).
        case badInput = 65
        /// The server could not be reached or answered with an error (EX_UNAVAILABLE).
        case network = 69
        /// A file to read does not exist (EX_NOINPUT).
        case missingFile = 66
        /// Any other storage failure (EX_IOERR).
        case storage = 74
    }

    let status: Status
    let message: String

    var description: String { message }

    static func unknownFeed(_ key: String) -> CommandFailure {
        CommandFailure(
            status: .unknownFeed,
            message: "No feed \(Terminal.escape(key).debugDescription) in this cache; `pagedb feeds` lists them")
    }
}

extension CommandFailure {
    /// The one line and exit status that `pagedb` reports for a failure of the library or a command,
    /// or nil for an error that is not one of them (argument parsing).
    static func report(for error: any Error) -> CommandFailure? {
        switch error {
        case let error as CommandFailure:
            error
        case let error as StorageError:
            CommandFailure(status: status(error.kind), message: Terminal.escape(error.message))
        case let error as FixtureError:
            CommandFailure(status: .badInput, message: Terminal.escape(error.description))
        case let error as FeedError:
            feed(error, sourceStatus: .storage)
        default:
            nil
        }
    }

    /// The line and status for a feed's failed refresh or next page: the cache failing is reported
    /// as every command reports a storage error (busy 5, damaged 2, …); any other kind is the fault
    /// of what the command fed the engine, and exits with `sourceStatus` (the server's 69 for
    /// `sync`, the page file's 65 for `apply`).
    static func feed(_ error: FeedError, sourceStatus: Status) -> CommandFailure {
        let status = error.kind == .storage ? error.storageKind.map(status) ?? .storage : sourceStatus
        return CommandFailure(status: status, message: Terminal.escape(error.message))
    }

    private static func status(_ kind: StorageError.Kind) -> CommandFailure.Status {
        switch kind {
        case .notADatabase, .corrupt, .foreignDatabase: .damaged
        case .schemaTooNew: .schemaTooNew
        case .busy: .busy
        // An older schema that a look cannot read is reported as a file with no cache to show.
        case .cannotOpen, .schemaTooOld: .missingFile
        case .invalidArgument: .usage
        default: .storage
        }
    }
}

extension ParsableCommand {
    /// Runs a command's work. Failures are reported once, by ``PagedDB/main()``; this stays for
    /// commands written before that (it adds nothing).
    func reportingFailures(_ body: () async throws -> Void) async throws {
        try await body()
    }
}
