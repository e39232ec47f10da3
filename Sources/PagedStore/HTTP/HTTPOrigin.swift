import Foundation

/// A URL's origin (RFC 6454): scheme, host and port. Credentials go only to the origin they were
/// configured for, as browsers and `URLSession`'s own credential handling do.
///
/// `localhost` and `127.0.0.1` are different origins, and so are two ports of one host.
struct HTTPOrigin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    /// The origin of an `http` or `https` URL with a host; nil for any other URL.
    init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }
}
