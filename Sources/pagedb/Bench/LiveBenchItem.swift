import Foundation
import PagedStore
import PagedStoreTesting

/// The item of the live-following benchmark: it carries the wall-clock instant its write began, so
/// that whoever sees it (this process or another one on the same machine) can tell how long the
/// write took to reach its list.
struct LiveBenchItem: FeedItem, Codable {
    let id: String
    /// `CLOCK_REALTIME` in seconds, read just before the write's call: the latency measured from it
    /// includes the commit itself.
    let writtenAt: Double

    /// The realtime clock in seconds: the one clock two processes on one machine share.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A source that answers nothing: the benchmark's feeds only write locally and never fetch.
    static var silentSource: ScriptedSource<LiveBenchItem> {
        ScriptedSource { _ in Page(items: [], olderCursor: nil) }
    }
}
