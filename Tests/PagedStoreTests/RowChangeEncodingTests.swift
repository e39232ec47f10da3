import PagedStoreFixtures
import TestSupport
import Testing

@testable import PagedStore

/// A change as the file's change record keeps it: what is written reads back the same, and bytes
/// edited in the file read as nothing rather than as a wrong or huge change.
@Suite(.limit(minutes: 3)) struct RowChangeEncodingTests {
    @Test(arguments: 0..<200) func aRandomChangeReadsBackTheSame(seed: UInt64) throws {
        var random = SplitMix64(seed: 0xE0_0000 + seed)
        let old = (0..<Int.random(in: 0...40, using: &random)).map {
            RowChangeComposingTests.Row(id: "row \($0) ✓", version: 0)
        }
        let (change, new) = RowChangeComposingTests.randomStep(of: old, step: 1, using: &random)
        let decoded = RowChange(encoded: change.encoded, rowLimit: max(old.count, new.count))
        #expect(decoded == change)
    }

    @Test func aPageOnTopIsAFewBytes() {
        let change = RowChange(deleted: Array(950..<1000), inserted: Array(0..<50))
        #expect(change.encoded.count < 16)
        #expect(RowChange(encoded: change.encoded, rowLimit: 1000) == change)
    }

    @Test func aFullReloadReadsBack() {
        #expect(RowChange(encoded: RowChange.fullReload.encoded, rowLimit: 0) == .fullReload)
    }

    @Test func rowsBeyondTheFeedAreRefused() {
        let change = RowChange(deleted: Array(0..<10))
        #expect(RowChange(encoded: change.encoded, rowLimit: 9) == nil)
        // A run claiming 2^40 rows in a two-row feed reads as nothing, without allocating them.
        var bytes: [UInt8] = [1, 0, 1, 0]
        bytes += [0x80, 0x80, 0x80, 0x80, 0x80, 0x20]
        bytes += [0, 0, 0, 0]
        #expect(RowChange(encoded: bytes, rowLimit: 2) == nil)
    }

    @Test(arguments: 0..<100) func editedBytesNeverTrap(seed: UInt64) {
        var random = SplitMix64(seed: 0xED_0000 + seed)
        var bytes = RowChange(
            deleted: [1, 2, 3, 9], inserted: [0, 4], reloaded: [5], reloadedIDs: ["a", "b"], moved: [(from: 7, to: 1)]
        ).encoded
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.removeLast(min(bytes.count - 1, Int.random(in: 1...3, using: &random)))
            default:
                bytes.insert(
                    UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
            }
        }
        if let decoded = RowChange(encoded: bytes, rowLimit: 12) {
            let rows =
                decoded.deleted + decoded.inserted + decoded.reloaded + decoded.moved.flatMap { [$0.from, $0.to] }
            #expect(rows.allSatisfy { (0..<12).contains($0) })
        }
    }
}
