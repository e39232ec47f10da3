import Foundation
import TestSupport

/// A `pagedb-harness` process killed with SIGKILL at a chosen instant, as the crash harnesses kill
/// their writers.
enum KilledRun {
    /// Starts `pagedb-harness arguments…`, kills it `delay` after the first line it prints that starts
    /// with `marker` (its first line when nil, or its end when it prints none), and returns the
    /// whole lines it printed; waited for off the test pool (see ``offThePool(_:)``).
    static func lines(
        of arguments: [String], after delay: Duration, from marker: String? = nil
    ) async throws
        -> [String]
    {
        try await offThePool { try linesBlocking(of: arguments, after: delay, from: marker) }
    }

    private static func linesBlocking(
        of arguments: [String], after delay: Duration, from marker: String?
    ) throws
        -> [String]
    {
        let process = ChildProcess()
        process.executableURL = HarnessBinary.url
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.start()
        // The delay counts from the writer's first line (or the first one with the marker), not from
        // its launch: a slow start (a sanitizer's, a loaded machine's) must not use up the delay
        // before anything is written.
        var first = output.fileHandleForReading.nextChunk()
        if let marker {
            let lineStart = Data(("\n" + marker).utf8)
            while !first.starts(with: Data(marker.utf8)), first.range(of: lineStart) == nil {
                let chunk = output.fileHandleForReading.nextChunk()
                if chunk.isEmpty { break }
                first += chunk
            }
        }
        Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let text = String(decoding: first + output.fileHandleForReading.readToTheEnd(), as: UTF8.self)
        // A line cut by the kill has no newline: it is not an acknowledgement.
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()
        return lines
    }
}
