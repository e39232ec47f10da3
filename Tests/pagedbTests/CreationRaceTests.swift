import Foundation
import TestSupport
import Testing

/// Two processes creating the same new cache at once: creation and migration wait
/// for each other like any write, so both succeed.
@Suite(.limit(minutes: 3), .plainRunOnly) struct CreationRaceTests {
    @Test func twoProcessesCreatingOneCacheBothSucceed() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        var failures: [String] = []
        for race in 0..<30 {
            let db = scratch.path("new-\(race).sqlite")
            let processes = ["a", "b"].map { feed in
                let process = ChildProcess()
                process.executableURL = PagedDBBinary.url
                process.arguments = ["seed", feed, "--db", db, "--generate", "20"]
                process.standardOutput = FileHandle.nullDevice
                let errors = Pipe()
                process.standardError = errors
                return (process, errors)
            }
            for (process, _) in processes { try process.start() }
            for (process, errors) in processes {
                let message = await offThePool {
                    let message = String(decoding: errors.fileHandleForReading.readToTheEnd(), as: UTF8.self)
                    process.waitUntilExit()
                    return message
                }
                if process.terminationStatus != 0 { failures.append("race \(race): \(message)") }
            }
            let feeds = try await PagedDBBinary.run(["feeds", "--db", db, "--json"])
            let keys = (try? PagedDBBinary.json(feeds) as? [[String: Any]])?.compactMap { $0["key"] as? String }
            #expect(keys == ["a", "b"], "race \(race): both feeds are in the file")
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
