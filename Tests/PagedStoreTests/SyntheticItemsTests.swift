import Foundation
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// The generator must match the shared benchmark workload byte for byte (its conformance values).
@Suite(.limit(minutes: 3)) struct SyntheticItemsTests {
    let items = SyntheticItems(seed: 1)

    @Test func idsAndPayloadsMatchTheWorkloadsConformanceValues() {
        #expect(items.itemID(0) == "it_888d842af679498f")
        let expected0 =
            #"{"id":"it_888d842af679498f","title":"Post #0","author":"user_5415","created_at":1700000000000,"body":"im veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Du"}"#
        #expect(String(decoding: items.payload(0), as: UTF8.self) == expected0)
        let expected1 =
            #"{"id":"it_888d842af679498f","title":"Post #0","author":"user_5415","created_at":1700000000000,"body":"ostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dol"}"#
        #expect(String(decoding: items.payload(0, revision: 1), as: UTF8.self) == expected1)
    }

    @Test func everyPayloadIsTwoHundredBytes() {
        for number in [0, 9, 10, 99_999, 100_000, 999_999] {
            #expect(items.payload(number).count == 200, "item \(number)")
        }
    }

    @Test func theWorkloadsFeedAndPositionChoicesMatch() {
        #expect((0..<8).map { items.random(tag: 4, UInt64($0)) % 1000 } == [391, 574, 636, 393, 171, 110, 44, 27])
        #expect(
            (0..<8).map { 50 * (1000 + items.random(tag: 5, UInt64($0)) % 1000) }
                == [64850, 88550, 68550, 51600, 58950, 70300, 56450, 70450])
    }
}
