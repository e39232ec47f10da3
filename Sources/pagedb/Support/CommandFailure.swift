import ArgumentParser
import Foundation
import PagedStore

/// A failure `pagedb` reports as one line on stderr, with an exit status of its own.
struct CommandFailure: Error, CustomStringConvertible {
    /// Exit statuses, documented in the README.
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

extension ParsableCommand {
    /// Runs a command's work and turns every failure into one clear line on stderr and its exit status.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CommandFailure {
            throw fail(error.message, error.status)
        } catch let error as StorageError {
            throw fail(Terminal.escape(error.message), Self.status(of: error))
        } catch let error as FixtureError {
            throw fail(Terminal.escape(error.description), .badInput)
        } catch let error as FeedError {
            throw fail(Terminal.escape(error.message), error.storageKind.map(Self.status) ?? .storage)
        }
    }

    private func fail(_ message: String, _ status: CommandFailure.Status) -> ExitCode {
        Terminal.printError(message)
        return ExitCode(status.rawValue)
    }

    private static func status(of error: StorageError) -> CommandFailure.Status {
        status(error.kind)
    }

    private static func status(_ kind: StorageError.Kind) -> CommandFailure.Status {
        switch kind {
        case .notADatabase, .corrupt, .foreignDatabase: .damaged
        case .schemaTooNew: .schemaTooNew
        case .busy: .busy
        case .cannotOpen: .missingFile
        case .invalidArgument: .usage
        default: .storage
        }
    }
}
