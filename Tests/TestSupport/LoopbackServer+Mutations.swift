import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the loopback server's `/mutations` route made of one idempotency key (see
/// ``LoopbackServer/mutationLog()``).
public struct MutationDelivery: Decodable, Sendable {
    /// How many POSTs carried the key.
    public let deliveries: Int
    /// Whether the server applied the edit (once: later deliveries are answered as done).
    public let applied: Bool
    /// Whether the server refused the edit for good (a 422 on every delivery).
    public let rejected: Bool
    /// Deliveries answered 409, 503 or 503 with `Retry-After`: the sender must try again.
    public let retryable: Int
    /// Deliveries of a key already applied, answered 200 without applying it again.
    public let duplicates: Int
    /// Which key this was to arrive: 0 for the first.
    public let order: Int
    /// The place of the key's first delivery among all deliveries, from 0: an item's edits are sent
    /// one at a time, each after the one before settled, so an edit's first delivery comes after
    /// the last delivery of the edit before it.
    public let firstDelivery: Int
    /// The place of the key's last delivery among all deliveries, from 0.
    public let lastDelivery: Int
    /// The edit's kind, as its first delivery sent it.
    public let kind: String
    /// The item the edit changed.
    public let item: String
    /// The mark the edit wrote.
    public let mark: String
}

extension LoopbackServer {
    /// A server of queued edits that applies each idempotency key once:
    ///
    /// - `POST /mutations` with an `Idempotency-Key` header and a JSON body `{kind, item, mark}`:
    ///   answered by a hash of the key, so that each key always meets the same server: 2 in 10 are
    ///   refused with 422 on every delivery; 1 in 10 each answer their first delivery 503, 409, or
    ///   503 with `Retry-After: 1`, and are applied on the next; the rest are applied at once. A key
    ///   applied already is answered 200 and counted as a duplicate, never applied again.
    /// - `GET /mutations/log`: every key received, as ``MutationDelivery`` values by key.
    static let mutationRoutes = #"""
        import hashlib
        MUTATIONS = {}
        DELIVERIES = [0]

        def mutation_rule(key):
            return hashlib.sha256(key.encode()).digest()[0] % 10

        def mutations_post(handler):
            key = handler.headers.get("Idempotency-Key") or ""
            length = int(handler.headers.get("Content-Length") or 0)
            try:
                body = json.loads(handler.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            if not isinstance(body, dict) or not body.get("kind") or not body.get("item"):
                # A body cut short (its writer killed mid-send) names no edit: nobody is there to
                # answer, and recording it would file the key under no kind and no item.
                handler.send(400, {"key": key}, [])
                return
            rule = mutation_rule(key)
            with lock:
                delivery = DELIVERIES[0]
                DELIVERIES[0] += 1
                entry = MUTATIONS.setdefault(key, {"deliveries": 0, "applied": False, "rejected": False,
                                                   "retryable": 0, "duplicates": 0, "order": len(MUTATIONS),
                                                   "first_delivery": delivery,
                                                   "kind": str(body.get("kind", "")),
                                                   "item": str(body.get("item", "")),
                                                   "mark": str(body.get("mark", ""))})
                entry["deliveries"] += 1
                entry["last_delivery"] = delivery
                first = entry["deliveries"] == 1
                if rule < 2:
                    entry["rejected"] = True
                    answer = (422, [])
                elif first and rule == 2:
                    answer = (503, [])
                elif first and rule == 3:
                    answer = (409, [])
                elif first and rule == 4:
                    answer = (503, [("Retry-After", "1")])
                elif entry["applied"]:
                    entry["duplicates"] += 1
                    answer = (200, [])
                else:
                    entry["applied"] = True
                    answer = (200, [])
                if answer[0] in (409, 503):
                    entry["retryable"] += 1
            handler.send(answer[0], {"key": key}, answer[1])

        def mutations_log(handler, query):
            with lock:
                handler.send(200, MUTATIONS)

        def do_post(handler):
            if urlparse(handler.path).path == "/mutations":
                mutations_post(handler)
            else:
                handler.send(404, {"error": "no route"})

        Handler.do_POST = do_post
        ROUTES.update({"/mutations/log": mutations_log})
        """#

    /// Every idempotency key `/mutations` received so far, with what it made of each.
    public func mutationLog() async throws -> [String: MutationDelivery] {
        let (data, _) = try await URLSession.shared.data(from: url("mutations/log"))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode([String: MutationDelivery].self, from: data)
    }
}
