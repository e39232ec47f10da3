import Foundation

/// Which file a cache is, whatever path opened it: its device and inode. Two stores opened on one
/// file (through a symbolic link, a relative path, or twice by one app) have the same identity.
package struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path`, or nil when it cannot be read (an in-memory database).
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
    }
}
