import Foundation
import PagedStoreFixtures

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixture or page file as an option names it: a path, `-` for standard input, or a pipe or FIFO
/// given as a path (`--file <(curl …)`).
///
/// The reader maps a regular file and gives its pages back as it goes, and `seed` reads its file
/// twice (a check, then the write). A stream can be read only once and cannot be mapped, so it is
/// copied once, 64 KiB at a time, into a file of a private temporary folder that both passes map:
/// memory stays bounded, the disk holds the stream (refused past the reader's file limit), and the
/// errors and the all-or-nothing write are a file's.
struct FixtureInput {
    /// The name errors give: the path as given, or `<stdin>` for `-`.
    let name: String
    /// A regular file the reader can map: the path given, or the stream's copy.
    let path: String
    /// The folder of the stream's copy, removed by ``remove()``.
    private let folder: TemporaryFolder?

    /// Opens `given`: `-` is standard input; any path that is not a regular file is read as a stream.
    /// - Throws: ``CommandFailure``: the missing-file status when the path does not exist, the
    ///   bad-input status when the stream cannot be read or is larger than the reader's file limit.
    init(_ given: String) throws {
        if given == "-" {
            name = "<stdin>"
            (path, folder) = try Self.copy(STDIN_FILENO, named: name)
            return
        }
        try FixtureFile.checkExists(given)
        name = given
        var info = stat()
        guard stat(given, &info) == 0, info.st_mode & S_IFMT != S_IFREG else {
            // A regular file, or one stat cannot see: the reader opens it and says what is wrong.
            path = given
            folder = nil
            return
        }
        let descriptor = open(given, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.problem(in: given, "cannot read the file (no permission?)")
        }
        defer { close(descriptor) }
        (path, folder) = try Self.copy(descriptor, named: given)
    }

    /// Removes the stream's copy, if one was made.
    func remove() { folder?.remove() }

    /// Runs `body`, whose fixture errors name ``path``, with those errors naming the input as given.
    func namingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as FixtureError where error.file == path {
            error.file = name
            throw error
        }
    }

    /// Copies what `descriptor` reads, to its end, into a new private file.
    private static func copy(_ descriptor: Int32, named name: String) throws -> (String, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let path = folder.path("stream")
        do {
            try copy(descriptor, named: name, to: path)
        } catch {
            folder.remove()
            throw error
        }
        return (path, folder)
    }

    private static func copy(_ descriptor: Int32, named name: String, to path: String) throws {
        let output = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw failure(writing: path) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw problem(in: name, "cannot read it: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return }
            total += count
            guard total <= FixtureReader.maxFileBytes else {
                throw problem(in: name, "the file is larger than \(FixtureReader.maxFileBytes >> 20) MiB")
            }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes {
                    write(output, $0.baseAddress.map { $0 + written }, count - written)
                }
                if step < 0, errno == EINTR { continue }
                guard step > 0 else { throw failure(writing: path) }
                written += step
            }
        }
    }

    /// A stream that cannot be read whole, reported as the reader reports a file: `name:1:1: reason`.
    private static func problem(in name: String, _ reason: String) -> CommandFailure {
        CommandFailure(status: .badInput, message: Terminal.escape("\(name):1:1: \(reason)"))
    }

    /// The storage failure of writing the stream's copy (a full disk, say).
    private static func failure(writing path: String) -> CommandFailure {
        CommandFailure(
            status: .storage,
            message: "cannot copy the stream to a temporary file (\(String(cString: strerror(errno)))): "
                + "set TMPDIR to a folder with room")
    }
}
