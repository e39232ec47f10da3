import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A descriptor that becomes readable when a cache file may have been written, for
/// ``FileChangeWatcher`` to wait on: inotify on Linux, the file's Darwin notification on Apple
/// platforms (which PagedStore writers post after each commit, ``post(for:)``). Nil where neither
/// exists, and the watcher then looks on a timer.
final class FileChangeSignal {
    /// The descriptor to wait on.
    let descriptor: Int32
    #if canImport(Darwin) && !canImport(Glibc)
    private let token: Int32
    #endif

    #if canImport(Glibc)
    /// Watches the folder of `path` (SQLite writes the `-wal` or `-journal` beside the file, and
    /// creates them anew): any write there makes the watcher look at `data_version`.
    init?(watching path: String, identity: FileIdentity) {
        let folder = (path as NSString).deletingLastPathComponent
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let events = UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)
        guard inotify_add_watch(descriptor, folder.isEmpty ? "." : folder, events) >= 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    /// Reads the pending events: which file changed does not matter, `data_version` tells.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }

    deinit {
        close(descriptor)
    }

    /// Nothing to post: inotify sees the write itself.
    static func post(for identity: FileIdentity) {}
    #elseif canImport(Darwin)
    /// Registers for the file's notification, which every PagedStore writer posts after a commit.
    init?(watching path: String, identity: FileIdentity) {
        var descriptor: Int32 = -1
        var token: Int32 = 0
        guard notify_register_file_descriptor(Self.name(of: identity), &descriptor, 0, &token) == 0 else {
            return nil
        }
        self.descriptor = descriptor
        self.token = token
    }

    /// Reads the pending notifications (each is a token number).
    func drain() {
        var value: Int32 = 0
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        while read(descriptor, &value, MemoryLayout<Int32>.size) > 0 {}
    }

    deinit {
        notify_cancel(token)
    }

    /// Tells every watcher of the file, in any process, that a commit happened.
    static func post(for identity: FileIdentity) {
        notify_post(name(of: identity))
    }

    /// The notification's name: the file's identity, the same for the app and its extensions.
    private static func name(of identity: FileIdentity) -> String {
        "dev.pagedstore.commit.\(identity.device).\(identity.inode)"
    }
    #else
    init?(watching path: String, identity: FileIdentity) { nil }
    func drain() {}
    static func post(for identity: FileIdentity) {}
    #endif
}
