import Foundation

/// The sizes of a cache file and its log on disk, as `stat` gives them.
struct FileSizes {
    let file: Int64
    let log: Int64

    init(path: String) {
        file = Self.size(of: path)
        log = Self.size(of: path + "-wal")
    }

    static func size(of path: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// `bytes` for a person: 812 B, 14.2 KB, 3.1 MB.
    static func text(_ bytes: Int64) -> String {
        if bytes < 1_000 { return "\(bytes) B" }
        if bytes < 1_000_000 { return String(format: "%.1f KB", Double(bytes) / 1_000) }
        return String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
