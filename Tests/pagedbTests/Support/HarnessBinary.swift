import Foundation

/// Runs the test tools of `pagedb-harness` (crash-writer, random-writer, outbox-writer, hold-lock):
/// an executable built for the tests only, beside the test bundle as `pagedb` is, and shipped in no product.
enum HarnessBinary {
    /// The `pagedb-harness` executable built beside the test bundle.
    static let url = PagedDBBinary.builtBeside(named: "pagedb-harness")

    /// Runs `pagedb-harness arguments…` as ``PagedDBBinary/run(_:environment:timeout:unprivileged:executable:)``
    /// runs `pagedb`: with `PAGEDB_DATABASE` unset, waited for off the test pool.
    static func run(_ arguments: [String], timeout: Double = 120) async throws -> PagedDBBinary.Result {
        try await PagedDBBinary.run(arguments, timeout: timeout, executable: url)
    }
}
