import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixture file mapped into memory, read once from start to end, whose pages behind the reader are
/// given back as it goes: a 400 MB fixture is read with a resident size of a few MiB.
final class MappedFile {
    private let path: String
    private let base: UnsafeMutableRawPointer?
    private let size: Int
    /// Bytes read from something that cannot be mapped (a pipe): held whole, as before streaming.
    private let fallback: Data?
    private var released = 0
    /// The system's memory page size, asked once.
    private static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 1)

    /// Maps `path`, refusing a file larger than ``FixtureReader/maxFileBytes`` before reading it.
    init(path: String) throws(FixtureError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FixtureError(
                file: path, line: 1, column: 1, reason: "cannot read the file (missing, or no permission)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else {
            throw FixtureError(file: path, line: 1, column: 1, reason: "cannot read the file (is it a folder?)")
        }
        let size = Int(info.st_size)
        guard size <= FixtureReader.maxFileBytes else {
            throw FixtureError(
                file: path, line: 1, column: 1,
                reason: "the file is larger than \(FixtureReader.maxFileBytes >> 20) MiB")
        }
        if info.st_mode & S_IFMT == S_IFREG, size > 0,
            let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED
        {
            base = mapped
            self.size = size
            fallback = nil
        } else {
            base = nil
            self.size = 0
            var data = Data()
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                data.append(contentsOf: chunk[0..<count])
                if data.count > FixtureReader.maxFileBytes {
                    throw FixtureError(
                        file: path, line: 1, column: 1,
                        reason: "the file is larger than \(FixtureReader.maxFileBytes >> 20) MiB")
                }
            }
            fallback = data
        }
    }

    deinit {
        if let base { munmap(base, size) }
    }

    /// Runs `body` with the file's bytes.
    func withBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        if let fallback {
            let result = fallback.withUnsafeBytes { bytes in Result { () throws(E) in try body(bytes) } }
            return try result.get()
        }
        return try body(UnsafeRawBufferPointer(start: base, count: size))
    }

    /// The line and column of byte `offset`, counted 8 MiB at a time with each counted stretch given
    /// back at once: an error near the end of a 400 MB fixture does not bring the file into memory.
    /// (Dropped pages of a private read-only mapping are read again from the file if touched.)
    func location(of offset: Int) -> (line: Int, column: Int) {
        withBytes { bytes in
            let end = min(offset, bytes.count)
            var line = 1
            var lineStart = 0
            var chunkStart = 0
            while chunkStart < end {
                let chunkEnd = min(chunkStart + (8 << 20), end)
                for index in chunkStart..<chunkEnd where bytes[index] == 0x0A {
                    line += 1
                    lineStart = index + 1
                }
                drop(chunkStart..<chunkEnd)
                chunkStart = chunkEnd
            }
            return (line, offset - lineStart + 1)
        }
    }

    /// Gives the whole pages inside `range` back to the system (Linux; elsewhere a no-op).
    private func drop(_ range: Range<Int>) {
        #if os(Linux)
        guard let base else { return }
        let pageSize = Self.pageSize
        let start = (range.lowerBound + pageSize - 1) / pageSize * pageSize
        let end = range.upperBound / pageSize * pageSize
        if end > start { _ = madvise(base + start, end - start, MADV_DONTNEED) }
        #endif
    }

    /// Says that the reader is done with the bytes before `offset`: whole pages of them, in steps of
    /// 8 MiB, are dropped from memory (read again from the file if they are ever touched).
    func release(upTo offset: Int) {
        #if os(Linux)
        // Called for every item: the common case returns before any system call.
        guard let base, min(offset, size) - released >= (8 << 20) + Self.pageSize else { return }
        let end = min(offset, size) / Self.pageSize * Self.pageSize
        _ = madvise(base + released, end - released, MADV_DONTNEED)
        released = end
        #endif
    }
}
