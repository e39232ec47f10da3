import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the store that holds a send lease (``SendLease``) is still open: in another process, that
/// the process runs (a crash voids its leases); in this one, that the store is not closed or gone,
/// or that a handler it started still sends that edit.
final class LeaseHolders: @unchecked Sendable {
    // @unchecked: `open` and `sending` are only touched with `lock` held.
    static let shared = LeaseHolders()
    private let lock = NSLock()
    private var open: Set<String> = []
    /// The edits each holder's handlers send now.
    private var sending: [String: Set<UUID>] = [:]
    private let process = ProcessInfo.processInfo.processIdentifier

    /// A holder name for a new store of this process, open until ``closed(_:)``.
    func opened() -> String {
        let holder = SendLease.holder(store: UUID(), process: process)
        lock.withLock { _ = open.insert(holder) }
        return holder
    }

    /// The store of `holder` closed or went away: its leases no longer hold.
    func closed(_ holder: String) {
        lock.withLock { _ = open.remove(holder) }
    }

    /// A handler of `holder` began to send the edit with `key`: its lease holds until
    /// ``endedSending(_:by:)``, even once the store closes.
    func beganSending(_ key: UUID, by holder: String) {
        lock.withLock { _ = sending[holder, default: []].insert(key) }
    }

    /// The handler of `holder` sending the edit with `key` answered.
    func endedSending(_ key: UUID, by holder: String) {
        lock.withLock {
            sending[holder]?.remove(key)
            if sending[holder]?.isEmpty == true { sending[holder] = nil }
        }
    }

    /// Whether the store that `holder` names is open, or still sends the edit with `key`.
    func lives(_ holder: String, sending key: UUID) -> Bool {
        guard let pid = SendLease(holder: holder, until: .distantPast).process else { return true }
        if pid == process { return lock.withLock { open.contains(holder) || sending[holder]?.contains(key) == true } }
        return ProcessLiveness.lives(pid)
    }
}

/// Whether a process of this device still runs.
enum ProcessLiveness {
    /// Whether process `pid` exists: signal 0 checks without sending anything. A process of another
    /// user or sandbox (an app extension) exists when the check is refused rather than failing.
    static func lives(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }
}
