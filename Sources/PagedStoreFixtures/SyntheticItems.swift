package import Foundation

/// Deterministic synthetic items, byte for byte those of the team's shared benchmark workload (its
/// data generator): `pagedb seed --generate` and `pagedb bench` both use them.
package struct SyntheticItems: Sendable {
    /// The seed; 1 unless chosen.
    package let seed: UInt64

    /// A generator for `seed`.
    package init(seed: UInt64 = 1) {
        self.seed = seed
    }

    private static let lorem = Array(
        ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et "
            + "dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip "
            + "ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu "
            + "fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia "
            + "deserunt mollit anim id est laborum.").utf8)

    /// The workload's `R(tag, i)`.
    package func random(tag: UInt64, _ index: UInt64) -> UInt64 {
        SplitMix64.mix((seed &* 0x9E37_79B9_7F4A_7C15) ^ (tag << 48) ^ index)
    }

    /// `it_` and 16 hex digits: unique per number.
    package func itemID(_ number: Int) -> String {
        let hex = String(random(tag: 1, UInt64(number)), radix: 16)
        return "it_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Exactly 200 bytes of JSON for item `number` at revision `revision`.
    package func payload(_ number: Int, revision: Int = 0) -> Data {
        let digits = String(number).count
        let offset = Int((random(tag: 3, UInt64(number)) &+ 17 &* UInt64(revision)) % 256)
        let body = String(decoding: Self.lorem[offset..<(offset + 97 - digits)], as: UTF8.self)
        let author = String(random(tag: 2, UInt64(number)) % 10000)
        let text =
            #"{"id":"\#(itemID(number))","title":"Post #\#(number)","author":"user_\#(String(repeating: "0", count: 4 - author.count) + author)","created_at":\#(1_700_000_000_000 + number * 1000),"body":"\#(body)"}"#
        return Data(text.utf8)
    }

    /// Items `range` as fixture pages of `pageSize`, generated lazily so that a million items never
    /// sit in memory together.
    package func pages(_ range: Range<Int>, pageSize: Int) -> some Sequence<FixturePage> {
        stride(from: range.lowerBound, to: range.upperBound, by: max(pageSize, 1)).lazy.map { start in
            let end = min(start + pageSize, range.upperBound)
            let items = (start..<end).map { FixtureItem(id: itemID($0), section: nil, json: payload($0)) }
            return FixturePage(
                items: items, olderCursor: end < range.upperBound ? "c:" + itemID(end - 1) : nil, newerCursor: nil)
        }
    }
}
