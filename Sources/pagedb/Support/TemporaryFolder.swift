import Foundation

/// A private folder (mode 0700) in the system's temporary folder, for scratch files: a dry run's
/// copy of the cache, the copy of a fixture that arrives on a pipe.
struct TemporaryFolder {
    let url: URL

    /// Creates the folder.
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pagedb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    /// The path of the file `name` in the folder.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Removes the folder and what it holds.
    func remove() { try? FileManager.default.removeItem(at: url) }
}
