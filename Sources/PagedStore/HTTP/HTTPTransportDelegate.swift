import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate: routes each task's callbacks to its ``HTTPExchange`` and decides redirects.
final class HTTPTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var exchanges: [Int: HTTPExchange] = [:]

    func register(_ exchange: HTTPExchange, for task: Int) {
        lock.withLock { exchanges[task] = exchange }
    }

    private func exchange(_ task: URLSessionTask) -> HTTPExchange? {
        lock.withLock { exchanges[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let refused = exchange(dataTask)?.receive(response) == true
        // FoundationNetworking ignores the disposition, hence the cancel as well; Darwin honours it.
        if refused { Self.cancel(dataTask) }
        completionHandler(refused ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if exchange(dataTask)?.receive(data) == true { Self.cancel(dataTask) }
    }

    /// A serial queue (so its thread is never one the delegate queue needs) for cancelling: `cancel()`
    /// waits for the session's queue, which may itself be waiting for room on the delegate queue
    /// (see ``HTTPDelegateQueue``).
    static let cancelling = DispatchQueue(label: "PagedStore.HTTPPageSource.cancel")

    /// Cancels on ``cancelling``, never on the delegate queue.
    static func cancel(_ task: URLSessionTask) {
        cancelling.async { task.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Refusing is answering nil: the task then completes with the redirect itself, and the
        // exchange's recorded failure wins. (Cancelling here as well makes FoundationNetworking trap.)
        guard let exchange = exchange(task), exchange.countRedirect() else { return completionHandler(nil) }
        guard let target = request.url, let origin = HTTPOrigin(target) else {
            exchange.fail(.refused("a redirect to a non-HTTP(S) URL"))
            return completionHandler(nil)
        }
        // Built from the previous hop's request, so headers withheld once stay withheld.
        var next = URLRequest(url: target)
        next.timeoutInterval = request.timeoutInterval
        let previous = task.currentRequest?.allHTTPHeaderFields ?? [:]
        if exchange.policy.trustedOrigins.contains(origin) {
            for (name, value) in previous { next.setValue(value, forHTTPHeaderField: name) }
        } else {
            next.setValue(previous.first { $0.key.lowercased() == "accept" }?.value, forHTTPHeaderField: "Accept")
            if previous.keys.contains(where: { $0.lowercased() != "accept" }) { exchange.policy.onHeadersWithheld?() }
        }
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = lock.withLock { exchanges.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(error: error)
    }
}
