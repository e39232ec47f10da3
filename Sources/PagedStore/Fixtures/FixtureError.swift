/// A fixture or page file that cannot be read, with the place of the problem.
package struct FixtureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's name as the user gave it.
    package var file: String
    /// 1-based line of the problem.
    package var line: Int
    /// 1-based column of the problem.
    package var column: Int
    /// What is wrong, as a sentence.
    package var reason: String

    /// `file:line:column: reason`, the form editors and terminals link to.
    package var description: String { "\(file):\(line):\(column): \(reason)" }
}

/// Turns byte offsets of a file into 1-based line and column numbers.
struct TextLocator {
    private let lineStarts: [Int]

    init(_ bytes: UnsafeRawBufferPointer) {
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { starts.append(offset + 1) }
        lineStarts = starts
    }

    /// The line and column of byte `offset`.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return (low + 1, offset - lineStarts[low] + 1)
    }
}
