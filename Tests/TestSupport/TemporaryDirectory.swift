public import Foundation

/// A fresh directory per test, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// Where the directory is.
    public let url: URL

    /// A directory named `prefix` and a UUID, in the system's temporary directory.
    public init(prefix: String = "PagedStoreTests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
