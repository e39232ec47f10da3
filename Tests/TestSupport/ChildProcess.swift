public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the tests that run `pagedb`, its harness and
/// helper scripts: the part of Foundation's `Process` they use.
///
/// Not Foundation's `Process`: to close the parent's descriptors in the child, its `run()` lists
/// `/proc/self/fd` and copies each entry's whole name buffer, reading past the end of the listing
/// once the process holds about 1,400 descriptors; the suite, running hundreds of tests at once,
/// holds that many and crashed there. Here the child closes every descriptor above the three it is
/// given with `posix_spawn_file_actions_addclosefrom_np`, which reads nothing.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: the configuration is set before `start()`, from one thread; the outcome is only
    // touched with `lock` held.

    /// The executable to run.
    public var executableURL: URL?
    /// Its arguments, without the executable.
    public var arguments: [String] = []
    /// Its environment; nil inherits this process's.
    public var environment: [String: String]?
    /// Its standard input, output and error: a `Pipe`, a `FileHandle`, or nil for `/dev/null`.
    public var standardInput: Any?
    /// See ``standardInput``.
    public var standardOutput: Any?
    /// See ``standardInput``.
    public var standardError: Any?

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var waitStatus: Int32?

    /// A process to configure and start.
    public init() {}

    /// The child's process id, 0 before it started.
    public var processIdentifier: Int32 { lock.withLock { pid } }

    /// Starts the child; the write ends of pipes it writes to and the read end of one it reads are
    /// closed here, as Foundation's `Process` does, so reading to their end ends with the child.
    public func start() throws {
        guard let path = executableURL?.path else { throw POSIXError(.ENOENT) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if devNull >= 0 { close(devNull) } }
        for (stream, target) in [
            (standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO),
        ] {
            posix_spawn_file_actions_adddup2(&actions, Self.descriptor(of: stream, for: target) ?? devNull, target)
        }
        guard let closeFrom = Self.addCloseFrom else { throw POSIXError(.ENOSYS) }
        _ = closeFrom(&actions, 3)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp =
            (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        lock.withLock { pid = child }
        for (stream, isInput) in [(standardInput, true), (standardOutput, false), (standardError, false)] {
            guard let pipe = stream as? Pipe else { continue }
            try? (isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
        }
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool {
        lock.withLock {
            guard pid > 0 else { return false }
            if waitStatus != nil { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { waitStatus = status }
            return waitStatus == nil
        }
    }

    /// Waits for the child to end, blocking the calling thread.
    public func waitUntilExit() {
        let child = lock.withLock { pid }
        guard child > 0 else { return }
        while isRunning {
            var status: Int32 = 0
            let reaped = waitpid(child, &status, 0)
            if reaped == child {
                lock.withLock { waitStatus = status }
            } else if reaped == -1 && errno != EINTR {
                // Reaped by `isRunning` on another thread meanwhile: it keeps the status.
                usleep(1000)
            }
        }
    }

    /// How the child ended: its exit status, or the signal that ended it.
    public var terminationStatus: Int32 {
        let status = lock.withLock { waitStatus } ?? 0
        return Self.signal(of: status) ?? ((status >> 8) & 0xff)
    }

    /// Whether the child exited or a signal ended it.
    public var terminationReason: Process.TerminationReason {
        Self.signal(of: lock.withLock { waitStatus } ?? 0) == nil ? .exit : .uncaughtSignal
    }

    /// Sends SIGTERM.
    public func terminate() {
        let child = lock.withLock { pid }
        if child > 0 { kill(child, SIGTERM) }
    }

    private static func signal(of status: Int32) -> Int32? {
        let signal = status & 0x7f
        return signal != 0 && signal != 0x7f ? signal : nil
    }

    /// The descriptor the child gets as `target` from `stream`.
    private static func descriptor(of stream: Any?, for target: Int32) -> Int32? {
        switch stream {
        case let pipe as Pipe:
            return target == STDIN_FILENO
                ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        case let handle as FileHandle:
            // `FileHandle.nullDevice` has no descriptor of its own (-1): `/dev/null` then.
            return handle.fileDescriptor >= 0 ? handle.fileDescriptor : nil
        default:
            return nil
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not declare.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()
}
