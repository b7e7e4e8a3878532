/**
 * Against DNS rebinding (DECISIONS §16): a page on `evil.example`, whose name its owner points at
 * 127.0.0.1 after the page has loaded, talks to this service as same-origin; only the `Host` it
 * sends (and the `Origin`, for a browser) still names `evil.example`. So a request is served only
 * when `Host` is a loopback name or one the operator listed (SVC_ALLOWED_HOSTS), and a browser's
 * `Origin` is one of those, or an origin allowed for CORS. Both are compared by parsed hostname,
 * exactly: `127.0.0.1.evil.example` is not `127.0.0.1`.
 */
import { Forbidden } from "../Errors.js"

/** The names of this machine that no DNS answer can take over. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"])
const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/

/** The hostname of `scheme://authority`, lower case, without port or trailing dot; undefined when it does not parse. */
const hostnameOf = (url: string): string | undefined => {
  try {
    const { hostname } = new URL(url)
    return hostname.length === 0 ? undefined : hostname.replace(/\.$/, "")
  } catch {
    return undefined
  }
}

export interface HostCheck {
  /** The refusal for a request's `Host` and `Origin` headers, or null when both are this service's. */
  readonly refusal: (host: string | undefined, origin: string | undefined) => Forbidden | null
}

/**
 * `allowedHosts`: SVC_ALLOWED_HOSTS (host names; `*` allows any host and origin);
 * `corsOrigins`: SVC_CORS_ORIGINS (exact origins, or `*`), whose pages may call the API.
 */
export const makeHostCheck = (allowedHosts: ReadonlyArray<string>, corsOrigins: ReadonlyArray<string>): HostCheck => {
  const anyHost = allowedHosts.includes("*")
  const listed = new Set(allowedHosts)
  const anyOrigin = corsOrigins.includes("*")
  const origins = new Set(corsOrigins.map((origin) => origin.toLowerCase()))
  const ours = (hostname: string) => LOOPBACK_NAMES.has(hostname) || IPV4_LOOPBACK.test(hostname) || listed.has(hostname)

  const refusal = (host: string | undefined, origin: string | undefined): Forbidden | null => {
    if (anyHost) return null
    // No Host at all (HTTP/1.0) is no browser's request; node refuses it on HTTP/1.1.
    if (host !== undefined) {
      const hostname = hostnameOf(`http://${host}`)
      if (hostname === undefined || !ours(hostname)) {
        return new Forbidden({
          message: `this service does not answer to the host ${JSON.stringify(host.slice(0, 100))}; ` +
            "an operator who serves it under that name lists it in SVC_ALLOWED_HOSTS"
        })
      }
    }
    if (origin !== undefined && !anyOrigin && !origins.has(origin.toLowerCase())) {
      const hostname = hostnameOf(origin)
      if (hostname === undefined || !ours(hostname)) {
        return new Forbidden({
          message: `requests from pages on ${JSON.stringify(origin.slice(0, 100))} are not accepted; ` +
            "list the page's origin in SVC_CORS_ORIGINS (or its host in SVC_ALLOWED_HOSTS)"
        })
      }
    }
    return null
  }
  return { refusal }
}
