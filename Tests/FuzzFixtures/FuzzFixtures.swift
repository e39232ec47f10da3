import Foundation
import PagedStore
import PagedStoreFixtures

/// The fuzz entry point: any bytes, read as a fixture and as a captured page, must give fixtures or
/// a `FixtureError`; never a crash, a hang or unbounded memory.
///
/// Built normally, this is a replayer: `swift run FuzzFixtures Tests/FuzzCorpus/fixtures` runs every
/// file of a corpus through the same entry point (the test suite does this too). Built for libFuzzer:
///
///     swift build --scratch-path .build-fuzz --product FuzzFixtures --sanitize=fuzzer --sanitize=address \
///         -Xswiftc -DFUZZING -Xswiftc -parse-as-library
///     .build-fuzz/debug/FuzzFixtures -max_total_time=60 -timeout=1 -rss_limit_mb=512 Tests/FuzzCorpus/fixtures
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFixtures(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    for reader in [FixtureReader(), FixtureReader(idKey: "uid", sectionKey: "day")] {
        _ = try? reader.read(data, file: "fuzz")
    }
    return 0
}

#if !FUZZING
@main
enum Replay {
    static func main() throws {
        var files = 0
        for folder in CommandLine.arguments.dropFirst() {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            for name in names {
                let data = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
                // One spare byte, so that even an empty input has an address to pass.
                let bytes = [UInt8](data) + [0]
                bytes.withUnsafeBufferPointer { buffer in
                    if let base = buffer.baseAddress { _ = fuzzFixtures(base, data.count) }
                }
                files += 1
            }
        }
        print("replayed \(files) inputs")
    }
}
#endif
