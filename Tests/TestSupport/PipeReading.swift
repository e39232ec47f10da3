public import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension FileHandle {
    /// What the other end has written so far, waiting for at least one byte; empty at the end.
    ///
    /// Foundation's `availableData` and `readDataToEndOfFile()` trap on an interrupted read (EINTR),
    /// which is common while tests start and end processes at once; this reads again instead.
    public func nextChunk() -> Data {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Everything the other end writes until it closes, read as ``nextChunk()`` reads.
    public func readToTheEnd() -> Data {
        var data = Data()
        while true {
            let chunk = nextChunk()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }
}
