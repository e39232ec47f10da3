import Foundation
import TestSupport
import Testing

/// Seeding streams the fixture: peak memory does not grow with the file.
@Suite struct StreamedSeedTests {
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

    /// Runs `pagedb seed` under python3, which reports the child's peak resident size in KiB.
    func peakKiB(seeding file: String, into db: String) throws -> (status: Int32, kib: Int) {
        let script = """
            import resource, subprocess, sys
            status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
            print(status, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", script, PagedDBBinary.url.path, "seed", "home", "--db", db, "--file", file,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        return (Int32(fields.first ?? -1), fields.count > 1 ? fields[1] : -1)
    }

    @Test func peakMemoryDoesNotGrowWithTheFixture() throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let small = try peakKiB(seeding: try fixture(scratch, Self.lines / 10), into: scratch.path("small.sqlite"))
        let large = try peakKiB(seeding: try fixture(scratch, Self.lines), into: scratch.path("large.sqlite"))
        print("StreamedSeed: \(Self.lines / 10) lines peak \(small.kib) KiB, \(Self.lines) lines peak \(large.kib) KiB")
        #expect(small.status == 0 && large.status == 0)
        if !TestEnvironment.underSanitizer {  // a sanitizer's shadow memory counts in the peak
            #expect(large.kib > 0 && large.kib < 64 << 10, "peak \(large.kib) KiB for \(Self.lines) lines")
            #expect(large.kib - small.kib < 16 << 10, "ten times the lines: \(small.kib) → \(large.kib) KiB")
        }
        let items = try PagedDBBinary.run(["feeds", "--db", scratch.path("large.sqlite"), "--json"])
        let rows = (try? PagedDBBinary.json(items) as? [[String: Any]])?.first?["rows"] as? Int
        #expect(rows == Self.lines)
    }
}
