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
enum TextLocator {
    /// The line and column of byte `offset`, counted when an error needs them (one pass up to it).
    static func location(of offset: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }
}
