import Foundation

/// Progress on stderr for long work, shown only on a terminal and only once the work has run for a
/// moment, so that quick runs and scripts see nothing.
final class Progress {
    private let total: Int?
    private let label: String
    private let started = Date()
    private var lastShown = Date.distantPast
    private var shown = false
    /// Asked once: `update` runs for every page of a seed (200,000 times for 10 million lines), and
    /// each question is a system call (`isatty`).
    private let onTerminal = Terminal.stderrIsTerminal

    init(_ label: String, total: Int?) {
        self.label = label
        self.total = total
    }

    /// Reports `done` units of work.
    func update(_ done: Int) {
        guard onTerminal else { return }
        let now = Date()
        guard now.timeIntervalSince(started) > 0.5, now.timeIntervalSince(lastShown) > 0.1 else { return }
        lastShown = now
        shown = true
        let of = total.map { " of \($0) (\(done * 100 / max($0, 1))%)" } ?? ""
        FileHandle.standardError.write(Data("\r\(label) \(done)\(of)…".utf8))
    }

    /// Replaces the count with `text`: a last step that reports no count of its own (a bulk seed's
    /// sorted insert and index rebuild), so the line does not sit at its last count meanwhile.
    func phase(_ text: String) {
        guard onTerminal, Date().timeIntervalSince(started) > 0.5 else { return }
        shown = true
        FileHandle.standardError.write(Data("\r\u{1B}[K\(label) \(text)…".utf8))
    }

    /// Ends the progress line, if one was shown.
    func finish() {
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
