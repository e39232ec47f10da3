import Foundation
import TestSupport

/// Runs the built `pagedb` binary as a user would, capturing its output and exit status.
enum PagedDBBinary {
    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
        /// Whether a signal ended the process (a crash).
        var crashed = false
        /// Whether the process was killed for running past its timeout (a hang).
        var timedOut = false
    }

    /// The `pagedb` executable built beside the test bundle, or the one `PAGEDSTORE_PAGEDB` names
    /// (to show that a test fails on an older build).
    static let url: URL = {
        if let other = ProcessInfo.processInfo.environment["PAGEDSTORE_PAGEDB"], !other.isEmpty {
            return URL(fileURLWithPath: other)
        }
        return builtBeside(named: "pagedb")
    }()

    /// The executable `name` that the build put beside the test bundle (in one of the four folders
    /// above it), or `.build/debug/name`.
    static func builtBeside(named name: String) -> URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/\(name)")
    }

    /// Runs `pagedb arguments…` (or the `executable` given, such as ``HarnessBinary/url``) with
    /// `PAGEDB_DATABASE` unset unless given, waited for off the test pool (see ``offThePool(_:)``).
    ///
    /// With `unprivileged`, a test run as root runs `pagedb` as the user `nobody` (through `setpriv`),
    /// so that file permissions apply to it as they do to an app; the caller gives that user the folder.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 120, unprivileged: Bool = false,
        executable: URL = url
    ) async throws -> Result {
        try await offThePool {
            try runBlocking(
                arguments, environment: environment, timeout: timeout, unprivileged: unprivileged,
                executable: executable)
        }
    }

    /// ``run(_:environment:timeout:unprivileged:executable:)`` on the calling thread, which it blocks
    /// until the process ends: for a race whose steps run on a thread of their own, never on the test pool.
    static func runBlocking(
        _ arguments: [String], environment: [String: String] = [:], timeout: Double = 120, unprivileged: Bool = false,
        executable: URL = url
    ) throws -> Result {
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        if unprivileged && getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", executable.path] + arguments
        }
        return try runBlocking(process, environment: environment, timeout: timeout)
    }

    /// Runs `script` with bash, as a user types it: `$PAGEDB` is the built binary, so the script can
    /// give it a real pipe (`… | "$PAGEDB" seed home --file -`, `--file <(…)`) or a FIFO.
    static func shell(_ script: String, timeout: Double = 120) async throws -> Result {
        try await offThePool {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", script]
            return try runBlocking(process, environment: ["PAGEDB": url.path], timeout: timeout)
        }
    }

    /// Runs `process` with `PAGEDB_DATABASE` unset unless `environment` gives it, and returns what
    /// it printed and how it ended.
    private static func runBlocking(
        _ process: ChildProcess, environment: [String: String], timeout: Double
    ) throws -> Result {
        var processEnvironment = ProcessInfo.processInfo.environment
        processEnvironment["PAGEDB_DATABASE"] = nil
        processEnvironment.merge(environment) { $1 }
        process.environment = processEnvironment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.start()
        // Weak: a cancelled work item stays queued until its deadline, and holding the process would
        // hold its pipes' descriptors open that long (thousands of them across the suite).
        let watchdog = DispatchWorkItem { [weak process] in
            if let process, process.isRunning { process.terminate() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        // Read both pipes before waiting, so a large output cannot fill a pipe and stall the process.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async {
            errorData = stderr.fileHandleForReading.readToTheEnd()
            group.leave()
        }
        let outputData = stdout.fileHandleForReading.readToTheEnd()
        group.wait()
        process.waitUntilExit()
        try? stdout.fileHandleForReading.close()
        try? stderr.fileHandleForReading.close()
        let timedOut =
            watchdog.isCancelled == false && process.terminationReason == .uncaughtSignal
            && process.terminationStatus == SIGTERM
        watchdog.cancel()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self),
            crashed: process.terminationReason == .uncaughtSignal && !timedOut, timedOut: timedOut)
    }

    /// The id of the user and group `nobody`.
    static let nobody: UInt32 = 65534

    /// Parses stdout as JSON.
    static func json(_ result: Result) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
    }
}

/// What the pagedb tests do with a test's folder.
extension TemporaryDirectory {
    /// Hands the folder to the user that ``PagedDBBinary/run(_:environment:timeout:unprivileged:executable:)``
    /// runs unprivileged commands as (a no-op unless the tests run as root).
    func giveToUnprivilegedUser() {
        guard getuid() == 0 else { return }
        chown(url.path, PagedDBBinary.nobody, PagedDBBinary.nobody)
    }

    /// Writes `text` to a file in the folder and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = self.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The bytes of a database and its write-ahead log, and whether its shared-memory index exists.
    /// The index's bytes are left out: every reader writes its read mark there (a read-only open
    /// too), and which slot it takes depends on what the readers before it left.
    func fingerprint(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] {
            if let data = FileManager.default.contents(atPath: path + suffix) { files[suffix] = data }
        }
        if FileManager.default.fileExists(atPath: path + "-shm") { files["-shm"] = Data() }
        return files
    }
}
