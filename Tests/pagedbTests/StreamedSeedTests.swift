import Foundation
import TestSupport
import Testing

/// Seeding streams the fixture: peak memory does not grow with the file.
@Suite(.limit(minutes: 15), .plainRunOnly) struct StreamedSeedTests {
    /// Lines of the larger fixture: `PAGEDSTORE_STREAM_LINES` (long mode: 10,000,000), 200,000 in CI.
    static let lines = Int(ProcessInfo.processInfo.environment["PAGEDSTORE_STREAM_LINES"] ?? "") ?? 200_000

    /// Writes an NDJSON fixture of `count` items of about 60 bytes.
    func fixture(_ scratch: TemporaryDirectory, _ count: Int) throws -> String {
        let path = scratch.path("items-\(count).ndjson")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        var chunk = ""
        for index in 0..<count {
            chunk += #"{"id":"item-\#(index)","title":"Post number \#(index)","n":\#(index)}"# + "\n"
            if chunk.utf8.count > 1 << 20 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data(chunk.utf8))
        try handle.close()
        return path
    }

    /// Runs `pagedb seed home --db db --file file` under python3, which reports the child's exit
    /// status and peak resident size in KiB. `feeding`, python that writes to the pipe `child.stdin`
    /// (with `count` from the command line), makes it a seed from standard input.
    func peakKiB(
        seeding file: String, into db: String, feeding: (count: Int, python: String)? = nil
    ) async throws -> (
        status: Int32, kib: Int
    ) {
        let script = """
            import resource, subprocess, sys
            count = int(sys.argv[1])
            child = subprocess.Popen(sys.argv[2:], stdin=\(feeding == nil ? "None" : "subprocess.PIPE"),
                stdout=subprocess.DEVNULL)
            \(feeding?.python ?? "")
            status = child.wait()
            print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", script, "\(feeding?.count ?? 0)", PagedDBBinary.url.path, "seed", "home", "--db", db,
            "--file", file,
        ]
        let output = Pipe()
        process.standardOutput = output
        let text = try await offThePool {
            try process.start()
            let text = String(decoding: output.fileHandleForReading.readToTheEnd(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        return (Int32(fields.first ?? -1), fields.count > 1 ? fields[1] : -1)
    }

    /// Python writing `count` NDJSON items of about 60 bytes, as ``fixture(_:_:)`` does, into the
    /// child's standard input as it reads them, then closing it.
    static let pipedItems = """
        for start in range(0, count, 10000):
            child.stdin.write("".join('{"id":"item-%d","title":"Post number %d","n":%d}\\n' % (n, n, n)
                for n in range(start, min(start + 10000, count))).encode())
        child.stdin.close()
        """

    /// Checks that seeding ten times the lines (`small` into `small.sqlite`, `large` into
    /// `large.sqlite`) took a bounded peak, and that every line was seeded.
    func expectBoundedPeak(
        _ small: (status: Int32, kib: Int), _ large: (status: Int32, kib: Int), in scratch: TemporaryDirectory,
        _ what: String
    ) async throws {
        print(
            "StreamedSeed \(what): \(Self.lines / 10) lines peak \(small.kib) KiB, \(Self.lines) lines peak \(large.kib) KiB"
        )
        #expect(small.status == 0 && large.status == 0)
        if !TestEnvironment.underSanitizer {  // a sanitizer's shadow memory counts in the peak
            #expect(large.kib > 0 && large.kib < 64 << 10, "peak \(large.kib) KiB for \(Self.lines) lines")
            #expect(large.kib - small.kib < 16 << 10, "ten times the lines: \(small.kib) → \(large.kib) KiB")
        }
        let items = try await PagedDBBinary.run(["feeds", "--db", scratch.path("large.sqlite"), "--json"])
        let rows = (try? PagedDBBinary.json(items) as? [[String: Any]])?.first?["rows"] as? Int
        #expect(rows == Self.lines)
    }

    @Test func peakMemoryOfASeedFromAPipeDoesNotGrowWithTheStream() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let small = try await peakKiB(
            seeding: "-", into: scratch.path("small.sqlite"), feeding: (Self.lines / 10, Self.pipedItems))
        let large = try await peakKiB(
            seeding: "-", into: scratch.path("large.sqlite"), feeding: (Self.lines, Self.pipedItems))
        try await expectBoundedPeak(small, large, in: scratch, "from a pipe")
    }

    @Test func peakMemoryDoesNotGrowWithTheFixture() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let small = try await peakKiB(
            seeding: try fixture(scratch, Self.lines / 10), into: scratch.path("small.sqlite"))
        let large = try await peakKiB(seeding: try fixture(scratch, Self.lines), into: scratch.path("large.sqlite"))
        try await expectBoundedPeak(small, large, in: scratch, "from a file")
    }
}
