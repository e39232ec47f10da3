import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The schema is defined once, in `Migrations/*.sql`; the binary carries it as
/// `Sources/PagedStore/Storage/SQLite/EmbeddedMigrations.swift`. This test keeps the two equal, and writes the
/// Swift file anew when run with `PAGEDSTORE_REGENERATE_MIGRATIONS=1`.
@Suite(.limit(minutes: 3)) struct EmbeddedMigrationsTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generatedFile = packageRoot.appendingPathComponent(
        "Sources/PagedStore/Storage/SQLite/EmbeddedMigrations.swift")

    @Test func embeddedMigrationsMatchTheFiles() throws {
        let files = try Self.migrationFiles()
        let expected = Self.render(files)
        if ProcessInfo.processInfo.environment["PAGEDSTORE_REGENERATE_MIGRATIONS"] == "1" {
            try expected.write(to: Self.generatedFile, atomically: true, encoding: .utf8)
        }
        let actual = try String(contentsOf: Self.generatedFile, encoding: .utf8)
        #expect(
            actual == expected,
            "EmbeddedMigrations.swift is out of date: run PAGEDSTORE_REGENERATE_MIGRATIONS=1 swift test --filter EmbeddedMigrations"
        )
        #expect(EmbeddedMigrations.all.map(\.name) == files.map(\.name))
        #expect(EmbeddedMigrations.all.map(\.sql) == files.map(\.sql))
    }

    @Test func migrationFilesAreNumberedOnceEach() throws {
        let versions = try Self.migrationFiles().map(\.version)
        #expect(!versions.isEmpty)
        #expect(
            versions == Array(1...(versions.last ?? 1)), "migrations are numbered 0001, 0002, … with no gap or repeat")
    }

    // MARK: - Generation

    static func migrationFiles() throws -> [Migration] {
        let folder = packageRoot.appendingPathComponent("Migrations")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        return try names.map { name in
            guard let version = Int(name.prefix { $0.isNumber }), name.dropFirst(4).hasPrefix("_") else {
                throw MigrationNameError(name: name)
            }
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            return Migration(version: version, name: name, sql: String(decoding: data, as: UTF8.self))
        }
    }

    struct MigrationNameError: Error, CustomStringConvertible {
        let name: String
        var description: String { "\(name): migration files are named NNNN_description.sql" }
    }

    static func render(_ migrations: [Migration]) -> String {
        var text = """
            // swift-format-ignore-file
            // Generated from Migrations/*.sql by the test `embeddedMigrationsMatchTheFiles`; do not edit.
            // After changing a migration: PAGEDSTORE_REGENERATE_MIGRATIONS=1 swift test --filter EmbeddedMigrations

            /// The schema migrations, compiled into the binary so that a copied `pagedb` still knows them.
            enum EmbeddedMigrations {
                /// Every migration in `Migrations/`, in version order.
                static let all: [Migration] = [

            """
        for migration in migrations {
            text += "        Migration(\n"
            text += "            version: \(migration.version), name: \(literal(migration.name)),\n"
            text += "            sql: \(literal(migration.sql))\n"
            text += "        ),\n"
        }
        text += "    ]\n}\n"
        return text
    }

    /// An ordinary one-line string literal: no content of the file can end or interpolate it.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
