import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a connection's file is, and how it is created: the symlink rule and private creation.
///
/// The rule: symbolic links in the folders of a path are followed, as every tool follows them; a
/// symbolic link as the file itself (the last component) is refused, dangling or not, and never
/// replaced. SQLite keeps its `-wal` and `-shm` files beside the name it opens, so two names for
/// one file would give two write-ahead logs for one database; refusing the link is the only safe
/// answer, and following folders keeps paths such as macOS's `/tmp` → `/private/tmp` working.
extension Connection {
    /// A path whose folders are resolved (no symbolic link left in them) and whose last component
    /// is not a symbolic link.
    struct ResolvedPath {
        /// The absolute path SQLite opens.
        let file: String

        /// Resolves `path`, or throws when its folder is missing or its last component is a link.
        init(_ path: String) throws(StorageError) {
            let (folder, name) = Self.split(path)
            guard let real = realpath(folder, nil) else {
                throw StorageError(
                    .cannotOpen, message: "Cannot open \(path): its folder \(folder) does not exist or cannot be read")
            }
            defer { free(real) }
            let resolvedFolder = String(cString: real)
            file = (resolvedFolder == "/" ? "" : resolvedFolder) + "/" + name
            var info = stat()
            if lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                throw StorageError(
                    .invalidArgument,
                    message:
                        "Refusing \(path): it is a symbolic link. Give the path of the file itself "
                        + "(links in its folders are followed; a link as the file is never followed or replaced)")
            }
        }

        /// The folder and last component of `path`, as `URL(fileURLWithPath:)` would split it (trailing
        /// slashes dropped; a bare name is in the current folder), without building URLs: their parsing
        /// cost about 10 µs of every cold open (W3).
        static func split(_ path: String) -> (folder: String, name: String) {
            var trimmed = Substring(path)
            while trimmed.utf8.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
            let folder = trimmed[..<slash]
            return (folder.isEmpty ? "/" : String(folder), String(trimmed[trimmed.index(after: slash)...]))
        }
    }

    /// Creates a missing file with mode 0600 (exclusively: a file made meanwhile by another process
    /// is kept, never replaced), so the cache and its `-wal`/`-shm` files, which copy the database's
    /// permissions, are readable by the app's user only. SQLite would use 0644.
    ///
    /// - Returns: Whether this call created the file.
    static func createPrivateFileIfMissing(_ file: String, named path: String) throws(StorageError) -> Bool {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return true
        }
        if errno == EEXIST { return false }
        throw StorageError(
            .cannotOpen, message: "Cannot create \(path): check that its folder exists and is writable")
    }

    /// Whether a file exists at `path` (a link counts as existing, dangling or not).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// What identifies one state of a file's bytes: its inode, size, and change and modification times.
    struct FileStamp: Equatable {
        let inode: UInt64
        let size: Int64
        let modified: [Int]

        /// The stamp of `path`, or nil when it cannot be read.
        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            #if canImport(Darwin)
            modified = [
                info.st_mtimespec.tv_sec, info.st_mtimespec.tv_nsec, info.st_ctimespec.tv_sec,
                info.st_ctimespec.tv_nsec,
            ].map { Int($0) }
            #else
            modified = [info.st_mtim.tv_sec, info.st_mtim.tv_nsec, info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
                .map { Int($0) }
            #endif
        }
    }
}
