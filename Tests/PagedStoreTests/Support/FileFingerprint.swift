import Foundation

/// The bytes of a file and its SQLite side files, to prove that an operation left them untouched.
struct FileFingerprint: Equatable, CustomStringConvertible {
    let files: [String: Data]

    init(_ path: String) {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            if let data = FileManager.default.contents(atPath: path + suffix) { files[suffix] = data }
        }
        self.files = files
    }

    var description: String {
        files.keys.sorted().map { "\($0.isEmpty ? "db" : $0): \(files[$0]?.count ?? 0) bytes" }.joined(separator: ", ")
    }
}
