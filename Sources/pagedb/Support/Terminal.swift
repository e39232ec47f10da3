import Foundation

/// Output helpers: terminal-safe text, tables, ages, JSON and stderr.
enum Terminal {
    /// Escapes control characters and escape sequences (C0, DEL, C1), bidirectional controls (which
    /// reorder what a table shows, such as U+202E) and line separators, so that ids and payloads from a
    /// server cannot move the cursor, recolour or retitle the user's terminal, or disguise a value.
    static func escape(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0..<0x20, 0x7F, 0x80..<0xA0, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Escaped and cut to `width` characters by an ellipsis in the middle, so that values which share
    /// a long prefix (URL cursors) still differ where they differ, at their end.
    static func short(_ text: String?, _ width: Int) -> String {
        guard let text else { return "-" }
        let escaped = escape(text)
        guard escaped.count > width else { return escaped }
        let kept = max(width - 1, 2)
        return String(escaped.prefix(kept - kept / 2)) + "…" + String(escaped.suffix(kept / 2))
    }

    /// Columns padded to their widest cell, two spaces apart.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        let render = { (cells: [String]) -> String in
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        return ([render(header)] + rows.map(render)).joined(separator: "\n")
    }

    /// "just now", "5 min ago", "3 h ago", "2 d ago".
    static func age(_ date: Date?, now: Date = Date()) -> String {
        guard let date else { return "never" }
        let seconds = now.timeIntervalSince(date)
        return seconds < 10 ? "just now" : "\(span(seconds)) ago"
    }

    /// When a queued edit is next tried: "in 40 s", "in 5 min", "in 3 h"; "due" once the time kept
    /// after a failed send has passed, "at once" when no failed send kept one.
    static func nextTry(_ date: Date?, now: Date = Date()) -> String {
        guard let date else { return "at once" }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? "in \(span(seconds))" : "due"
    }

    /// "40 s", "5 min", "3 h", "2 d": a positive length of time, in whole units rounded down.
    private static func span(_ seconds: TimeInterval) -> String {
        // Clamped before the conversion: a date read from a file may be any value.
        let whole = seconds.isFinite ? Int(max(min(seconds, 1e15), 0)) : 0
        switch whole {
        case ..<60: return "\(whole) s"
        case ..<3600: return "\(whole / 60) min"
        case ..<86400: return "\(whole / 3600) h"
        default: return "\(whole / 86400) d"
        }
    }

    /// ISO 8601 in UTC, for JSON output.
    static func timestamp(_ date: Date?) -> String? {
        date.map { ISO8601DateFormatter().string(from: $0) }
    }

    /// Prints one JSON document (sorted keys, so output is stable; snake_case keys) on stdout.
    static func printJSON(_ value: some Encodable) throws {
        FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
    }

    /// One line on stdout, written at once rather than buffered: a process that reads `watch` line by
    /// line sees each change as it happens.
    static func printLine(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// One JSON line (`items --ndjson`, `watch --json`), written at once.
    static func printJSONLine(_ value: some Encodable) throws {
        let compact = JSONEncoder()
        compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        compact.keyEncodingStrategy = .convertToSnakeCase
        FileHandle.standardOutput.write(try compact.encode(value) + Data("\n".utf8))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    /// Prints `pagedb: error: message` on stderr.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("pagedb: error: \(message)\n".utf8))
    }

    /// Prints a line on stderr (progress, notes).
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    /// Whether stderr is a terminal (progress is shown only there).
    static var stderrIsTerminal: Bool { isatty(2) != 0 }
}
