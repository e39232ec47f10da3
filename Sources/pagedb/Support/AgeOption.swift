import ArgumentParser

/// A duration given on the command line as a number and a unit: `90s`, `30m`, `12h`, `7d`.
///
/// Parsed once, by ArgumentParser, into seconds: a malformed value is a usage error naming the
/// option, and no command parses the text again.
struct AgeOption: ExpressibleByArgument, Equatable {
    /// The duration in seconds.
    let seconds: Double

    /// Parses `90s`, `30m`, `12h` or `7d` (a fraction such as `1.5h` too); nil for anything else.
    init?(argument: String) {
        guard let unit = argument.last, let value = Double(argument.dropLast()), value >= 0, value.isFinite else {
            return nil
        }
        switch unit {
        case "s": seconds = value
        case "m": seconds = value * 60
        case "h": seconds = value * 3600
        case "d": seconds = value * 86400
        default: return nil
        }
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
