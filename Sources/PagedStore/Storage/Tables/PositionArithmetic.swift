/// Position arithmetic that cannot trap.
///
/// Positions come from the file, and a file can be edited: a bottom position near `Int64.max`
/// must fail one operation with a clear error, never crash the process.
extension PageStore {
    /// `base` moved by `steps` rows of ``positionStep`` (negative steps go up).
    /// - Throws: ``StorageError/Kind/corrupt`` when the result leaves `Int64`'s range.
    static func position(_ base: Int64, movedBy steps: Int) throws(StorageError) -> Int64 {
        let (distance, overflowA) = Int64(steps).multipliedReportingOverflow(by: positionStep)
        let (result, overflowB) = base.addingReportingOverflow(distance)
        guard !overflowA, !overflowB else { throw positionsOutOfRange(base) }
        return result
    }

    /// `a + b` for positions and distances read from the file.
    static func sum(_ a: Int64, _ b: Int64) throws(StorageError) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw positionsOutOfRange(a) }
        return result
    }

    /// `a - b` for positions read from the file.
    static func difference(_ a: Int64, _ b: Int64) throws(StorageError) -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        guard !overflow else { throw positionsOutOfRange(a) }
        return result
    }

    /// `count + delta` for row counts read from the file.
    /// - Throws: ``StorageError/Kind/corrupt`` when the result leaves `Int`'s range or is negative.
    static func count(_ count: Int, adding delta: Int) throws(StorageError) -> Int {
        let (result, overflow) = count.addingReportingOverflow(delta)
        guard !overflow, result >= 0 else {
            throw StorageError(
                .corrupt,
                message: "The feed's row counts (near \(count)) are out of range; "
                    + "the file was edited outside PagedStore. `pagedb verify` lists the damage")
        }
        return result
    }

    private static func positionsOutOfRange(_ position: Int64) -> StorageError {
        StorageError(
            .corrupt,
            message: "The feed's row positions (near \(position)) are out of range; "
                + "the file was edited outside PagedStore. `pagedb verify` lists the damage")
    }
}

/// A row a write put in the feed: which of the given items it holds, and where it went.
package struct WrittenRow: Sendable, Equatable {
    /// The item's offset in the array the write was given.
    package var offset: Int
    /// The row's position in the feed.
    package var position: Int64
}
