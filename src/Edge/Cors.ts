/**
 * Cross-origin requests from browsers (SVC_CORS_ORIGINS; off by default: no CORS header is ever
 * sent, so browsers keep other origins' pages from reading answers). With origins listed, a
 * request whose `Origin` is one of them (or any, with `*`) gets `Access-Control-Allow-Origin`
 * with that origin, `Vary: Origin` and the headers a client reads exposed; the edge answers its
 * preflight (OPTIONS with `Access-Control-Request-Method`) with 204 before the guards, since
 * browsers send preflights without credentials. Credentials are API keys in `Authorization`, not
 * cookies: `Access-Control-Allow-Credentials` is never sent.
 */

/** Response headers a cross-origin client may read: the request id, cache and rate-limit state. */
const EXPOSED = [
  "x-request-id",
  "x-cache",
  "retry-after",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "www-authenticate"
].join(", ")
const ALLOWED_METHODS = "GET, POST"
/** Headers a preflight allows when it names none (or names them oddly). */
const ALLOWED_HEADERS = "authorization, content-type, x-request-id, traceparent, tracestate, b3"
/** The header names a preflight asks for (`Access-Control-Request-Headers`): tokens, comma-separated. */
const REQUESTED_HEADERS = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/
const MAX_AGE_SECONDS = "600"

export interface Cors {
  /** The headers for a response to a request from `origin` (undefined: not allowed, or no Origin). */
  readonly headersFor: (origin: string | undefined) => Readonly<Record<string, string>> | undefined
  /**
   * The headers of a preflight's 204 (the request's origin allowed), else undefined. The headers
   * it asks for are allowed (clients add tracing headers such as `traceparent` and `b3`): the
   * service reads no cookies and checks every request's key itself.
   */
  readonly preflight: (origin: string | undefined, requested: string | undefined) => Readonly<Record<string, string>> | undefined
}

export const makeCors = (origins: ReadonlyArray<string>): Cors | undefined => {
  if (origins.length === 0) return undefined
  const any = origins.includes("*")
  const listed = new Set(origins)
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && (any || listed.has(origin))
  const headersFor = (origin: string | undefined) =>
    allowed(origin) ? { "access-control-allow-origin": origin, vary: "Origin", "access-control-expose-headers": EXPOSED } : undefined
  return {
    headersFor,
    preflight: (origin, requested) =>
      allowed(origin)
        ? {
          "access-control-allow-origin": origin,
          vary: "Origin",
          "access-control-allow-methods": ALLOWED_METHODS,
          "access-control-allow-headers": requested !== undefined && requested.length <= 1024 && REQUESTED_HEADERS.test(requested.trim())
            ? requested.trim()
            : ALLOWED_HEADERS,
          "access-control-max-age": MAX_AGE_SECONDS
        }
        : undefined
  }
}
