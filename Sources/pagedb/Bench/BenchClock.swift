import Foundation

/// Wall and CPU clocks and the statistics the shared benchmark workload asks for.
enum BenchClock {
    /// Monotonic wall time in seconds.
    static func wall() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU time of the process (user + system, all threads) in seconds.
    static func cpu() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU time of the process from `getrusage` (user + system, all threads, including ones that
    /// ended) in seconds.
    static func usage() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF_CONSTANT, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Latency fields in microseconds: `n= median_us= p99_us= mean_us= min_us= max_us=`, with
    /// nearest-rank percentiles (`sorted[ceil(p/100 · n) − 1]`).
    static func latencyFields(_ seconds: [Double]) -> String {
        let sorted = seconds.map { $0 * 1e6 }.sorted()
        guard !sorted.isEmpty else { return "n=0" }
        func rank(_ percent: Double) -> Double {
            sorted[max(Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1, 0)]
        }
        let mean = sorted.reduce(0, +) / Double(sorted.count)
        return "n=\(sorted.count) median_us=\(format(rank(50))) p99_us=\(format(rank(99))) mean_us=\(format(mean)) "
            + "min_us=\(format(sorted[0])) max_us=\(format(sorted[sorted.count - 1]))"
    }

    /// The median of `seconds`, in microseconds.
    static func medianMicroseconds(_ seconds: [Double]) -> String {
        let sorted = seconds.sorted()
        guard !sorted.isEmpty else { return "0" }
        return format(sorted[max(Int((0.5 * Double(sorted.count)).rounded(.up)) - 1, 0)] * 1e6)
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }

    /// The process's peak resident memory in bytes since the last ``resetPeakMemory()``.
    static func peakResidentBytes() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "")
        {
            return kilobytes * 1024
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF_CONSTANT, &usage)
        #if os(Linux)
        return usage.ru_maxrss * 1024
        #else
        return usage.ru_maxrss
        #endif
    }

    #if os(Linux)
    private static let RUSAGE_SELF_CONSTANT = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
    private static let RUSAGE_SELF_CONSTANT = RUSAGE_SELF
    #endif

    /// Resets the peak-memory mark (Linux: `/proc/self/clear_refs`), so a later reading covers only
    /// what follows. Returns false where the system cannot.
    @discardableResult
    static func resetPeakMemory() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}
