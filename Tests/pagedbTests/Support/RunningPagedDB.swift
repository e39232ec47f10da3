import Foundation
import TestSupport

/// A `pagedb` process that runs until the test ends it (`watch`), its stdout read line by line as
/// the process writes it.
final class RunningPagedDB: @unchecked Sendable {
    // @unchecked: `process` is only started, signalled and waited for; Process is not Sendable.
    private let process = ChildProcess()
    /// Each line of stdout, as it comes; the stream ends when the process closes its stdout.
    let lines: AsyncStream<String>

    /// Starts `pagedb arguments…` (with `PAGEDB_DATABASE` unset).
    init(_ arguments: [String]) throws {
        process.executableURL = PagedDBBinary.url
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PAGEDB_DATABASE"] = nil
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        try process.start()
        let reading = stdout.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let data = reading.nextChunk()
                if data.isEmpty { break }
                buffer.append(data)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            continuation.finish()
        }
    }

    /// Sends SIGINT (Ctrl-C) and waits for the process to end, off the test pool.
    /// - Returns: Its exit status, and whether a signal ended it (rather than its own exit).
    func interrupt() async -> (status: Int32, bySignal: Bool) {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
        await process.ended()
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
