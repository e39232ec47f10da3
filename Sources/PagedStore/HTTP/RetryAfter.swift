import Foundation

/// Reads how long a server asks a client to wait: `Retry-After` (RFC 9110 §10.2.3) and the rate-limit
/// reset of GitHub (`X-RateLimit-Reset`, epoch seconds) and Mastodon (an ISO 8601 date).
///
/// Anything else, or a value out of range (`inf`, `nan`, `1e300`, `-1`), is treated as absent: a
/// header never traps, never waits for ever, and never waits more than `maximum` seconds.
enum RetryAfter {
    /// The seconds to wait, from the headers of a failed response, or nil when the server said nothing
    /// usable.
    static func seconds(
        status: Int, headers: (String) -> String?, now: Date = Date(), maximum: Double
    ) -> (seconds: Double?, reset: Date?) {
        let retryAfter = headers("Retry-After").flatMap { retryAfterSeconds($0, now: now) }
        var reset: Date?
        // GitHub sends X-RateLimit-* on every answer: a 403 is a rate limit only when none remain.
        let limited = status == 429 || (status == 403 && headers("X-RateLimit-Remaining")?.trimmed == "0")
        if limited { reset = headers("X-RateLimit-Reset").flatMap { resetDate($0, now: now) } }
        let untilReset = reset.map { $0.timeIntervalSince(now) }
        let longest = [retryAfter, untilReset].compactMap { $0 }.max()
        return (longest.map { clamp($0, maximum: maximum) }, reset)
    }

    /// `Retry-After`: delta-seconds (`1*DIGIT`) or an HTTP-date, in seconds from `now`.
    static func retryAfterSeconds(_ value: String, now: Date) -> Double? {
        let text = value.trimmed
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        if text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // Digits only, at most 64 of them: always a finite Double.
            return Double(text)
        }
        return httpDate(text).map { $0.timeIntervalSince(now) }
    }

    /// `X-RateLimit-Reset`: epoch seconds (GitHub), seconds from now (small numbers, as some APIs
    /// send), or an ISO 8601 date with or without fractional seconds (Mastodon).
    static func resetDate(_ value: String, now: Date) -> Date? {
        let text = value.trimmed
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        if text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let number = Double(text) {
            return number > 1_000_000_000 ? Date(timeIntervalSince1970: number) : now.addingTimeInterval(number)
        }
        // `2024-05-01T12:00:00Z` to `2024-05-01T12:00:00.123456+05:30`: skip the formatters for anything else.
        guard (20...40).contains(text.utf8.count), text.contains("T"), text.contains(":") else { return nil }
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// An HTTP-date in any of the three forms RFC 9110 §5.6.7 requires a recipient to accept.
    static func httpDate(_ text: String) -> Date? {
        // Every form is 24 to 30 characters with a time: anything else is not worth three formatters.
        guard (24...32).contains(text.utf8.count), text.utf8.filter({ $0 == UInt8(ascii: ":") }).count == 2 else {
            return nil
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// Between zero and `maximum`; NaN (which no parser above returns) counts as zero.
    static func clamp(_ seconds: Double, maximum: Double) -> Double {
        guard seconds > 0 else { return 0 }
        return min(seconds, maximum.isFinite ? max(maximum, 0) : 3600)
    }
}

extension String {
    /// Without surrounding spaces and tabs.
    fileprivate var trimmed: String { trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
}
