/// Checked arithmetic on values read from the file (positions, page numbers, counts).
///
/// The file may have been edited or damaged: a bottom position near `Int64.max` must fail the write
/// with a typed error, never trap. The error is ``StorageError/Kind/corrupt``, since only an edited
/// or damaged file holds such values, and `pagedb verify` names them.
package enum StoredArithmetic {
    /// `a + b`, or an error naming `what` when it overflows.
    package static func sum(_ a: Int64, _ b: Int64, _ what: String) throws(StorageError) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        if overflow { throw outOfRange(what) }
        return result
    }

    /// `a * b`, or an error naming `what` when it overflows.
    package static func product(_ a: Int64, _ b: Int64, _ what: String) throws(StorageError) -> Int64 {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        if overflow { throw outOfRange(what) }
        return result
    }

    /// `a - b`, or an error naming `what` when it overflows.
    package static func difference(_ a: Int64, _ b: Int64, _ what: String) throws(StorageError) -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        if overflow { throw outOfRange(what) }
        return result
    }

    /// Throws unless `count + 1` steps of `step` fit on the side of `start` that `step`'s sign
    /// points to: after this check, every position of a page written from `start` is in range.
    package static func checkRoom(from start: Int64, steps count: Int, step: Int64) throws(StorageError) {
        _ = try sum(start, try product(Int64(count) + 1, step, "a position"), "a position")
    }

    /// `count + added` for a stored row count.
    package static func count(_ count: Int, plus added: Int) throws(StorageError) -> Int {
        let (result, overflow) = count.addingReportingOverflow(added)
        if overflow { throw outOfRange("the feed's row count") }
        return result
    }

    private static func outOfRange(_ what: String) -> StorageError {
        StorageError(
            .corrupt,
            message:
                "The cache holds \(what) out of range (an edited or damaged file); nothing was written. "
                + "`pagedb verify` lists such values")
    }
}
