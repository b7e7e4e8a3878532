/**
 * The edge: the one request handler of the service, on node's request event. It owns a request's
 * lifecycle from its first byte to its last, in one place:
 *
 *   request id → in flight → CORS (an allowed origin's preflight answered; Cors.ts) → guards
 *   (auth misconfiguration, rate limit, API key) → prepared responses → body under the byte limit
 *   → cache hits → a known pattern's analyze (AnalyzeAtEdge), the MCP transport for /mcp, or the
 *   app (HttpApi), with the edge's context → on close: HTTP metric, error report, access log, out
 *   of flight.
 *
 * It answers what needs no Effect machinery itself (refusals, prepared GETs, cache hits), with
 * the same headers as every response; everything else goes to the app behind it (Forward.ts)
 * with the security, rate-limit and request-id headers already set on the response. The edge
 * serves any content type: it only ever adds headers to what the app writes.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import * as Runtime from "effect/Runtime"
import type { IncomingMessage, ServerResponse } from "node:http"
import { ScopesFastLane } from "../Auth/ScopesFastLane.js"
import { CachedRepliesFastLane } from "../Cache/CachedRepliesFastLane.js"
import type { Mode } from "../Catalogue/Resources.js"
import { AppConfig } from "../Config.js"
import { type ApiError, errorKinds, InternalError, NotFound, unknownPattern, ValidationError } from "../Errors.js"
import { RequestTrackerFastLane } from "../Lifecycle/RequestTrackerFastLane.js"
import { ErrorReporting } from "../Observability/ErrorReporting.js"
import { type ServerSpan, Tracing } from "../Observability/Tracing.js"
import { type AnalysisStatus, countAnalysis, countHttp, DIAGNOSE_LABEL, recordAnalysis } from "../Observability/Metrics.js"
import { bodyTooLarge, type BodyOutcome, encodingRefusal, InflightBudget, inflateBody, isGzip, overloaded, readBody } from "./Body.js"
import { isJsonContentType } from "../Intake/Json.js"
import { makeCors } from "./Cors.js"
import { Guards } from "../Auth/Guards.js"
import { type GuardOutcome, GuardsFastLane } from "../Auth/GuardsFastLane.js"
import { headerValue, presentedKey } from "./Headers.js"
import { makeHostCheck } from "./HostCheck.js"
import { accessLog, errorReply, hasUnreadBody, pathOf, SECURITY_HEADERS } from "./Replies.js"
import type { EdgeIncomingMessage, EdgeRequest, RequestFailure } from "./RequestContext.js"
import { requestIdFrom } from "./RequestContext.js"
import { ANALYZE_PREFIX, DIAGNOSE_PATH, httpOperation, isDashboardPath, matchRoute, MCP_PATH, UNMATCHED } from "./Routes.js"
import { makeStaticResponses } from "./StaticResponses.js"
import { encodingOf, OTLP_PATHS } from "../Otlp/Wire/Status.js"
import { DASHBOARD_ASSETS, makeDashboard } from "../Ui/Shell.js"

/** A node request handler. */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void

const SECURITY = Object.entries(SECURITY_HEADERS)
const SECURITY_FLAT = SECURITY.flat()
const JSON_TYPE = "application/json"
const kindByStatus = new Map<number, string>(Object.values(errorKinds).map(({ kind, status }) => [status, kind]))

const ignore = () => undefined

/** A path segment as the router decoded it (`%20` a space), or as sent when it does not decode. */
const decodeName = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** A handler of requests the edge passed, given what the edge knows of the request. */
export type EdgeHandler = (request: IncomingMessage, response: ServerResponse, edge: EdgeRequest) => void

/**
 * Builds the edge in front of `app` (the HttpApi app as a node handler), `mcp` (the MCP
 * Streamable HTTP transport at /mcp) and `analyze` (a known pattern's analyze request that is not
 * a cache hit, run by the REST adapter on this event: AnalyzeAtEdgeLive).
 */
export const makeEdge = (
  app: NodeHandler,
  slugs: ReadonlySet<string>,
  mcp: EdgeHandler,
  analyze: (slug: string, request: IncomingMessage, response: ServerResponse, edge: EdgeRequest) => void
) =>
  Effect.gen(function*() {
    const guards = yield* Guards
    const guardsNow = yield* GuardsFastLane
    const statics = yield* makeStaticResponses
    const tracker = yield* RequestTrackerFastLane
    const replies = yield* CachedRepliesFastLane
    const scopes = yield* ScopesFastLane
    const reporting = yield* ErrorReporting
    const tracing = yield* Tracing
    const { allowedHosts, auth, corsOrigins, limits } = yield* AppConfig
    const dashboard = makeDashboard({ authRequired: auth.required })
    const cors = makeCors(corsOrigins)
    const hosts = makeHostCheck(allowedHosts, corsOrigins)
    const inflight = new InflightBudget(limits.maxInflightBytes)
    const runtime = yield* Effect.runtime<never>()
    const logs = LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Info)

    /** Writes a whole response the edge answers itself. */
    const send = (
      response: ServerResponse,
      status: number,
      contentType: string,
      body: Uint8Array | string,
      requestId: string,
      extra: Readonly<Record<string, string>>,
      close: boolean
    ) => {
      const headers: Array<string> = ["content-type", contentType, "content-length", String(Buffer.byteLength(body))]
      // a default the response sets itself (the dashboard's cache and policy) is replaced, not sent twice
      for (const [name, value] of SECURITY) if (!(name in extra)) headers.push(name, value)
      for (const name in extra) headers.push(name, extra[name] ?? "")
      headers.push("x-request-id", requestId)
      if (close) headers.push("connection", "close")
      response.writeHead(status, headers)
      response.end(body)
    }

    /**
     * The last resort: a defect thrown while the edge handles a request (a bug an input reached)
     * fails that request alone, with a 500, logged once; the process serves on.
     */
    const guard = (response: ServerResponse, requestId: string, step: () => void): void => {
      try {
        step()
      } catch (defect) {
        Runtime.runFork(runtime, Effect.logError("request failed unexpectedly").pipe(
          Effect.annotateLogs({ request_id: requestId, defect: defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect) })
        ))
        if (!response.headersSent) {
          const reply = errorReply(new InternalError({ message: "the request failed unexpectedly; the request id identifies it in the logs" }))
          send(response, reply.status, reply.contentType, reply.body, requestId, reply.headers, true)
        } else {
          response.destroy()
        }
      }
    }

    const handle = (request: EdgeIncomingMessage, response: ServerResponse, requestId: string): void => {
      const startedAt = performance.now()
      tracker.started()
      const method = request.method ?? "GET"
      const path = pathOf(request.url ?? "/")
      // the contract's route (its template and access), matched once
      const route = matchRoute(method, path)
      // OTLP's endpoints (exactly POST) answer errors as a google.rpc.Status (DECISIONS §5), the edge's own refusals included
      const otlp = method === "POST" && OTLP_PATHS.has(path)
      /**
       * The request's server span (DECISIONS §21), when the service exports its spans (else no
       * tracing code runs): an OTLP request's is made when it ends, unless it held only the
       * service's own spans (`ownTelemetryOnly`, told by the receiver).
       */
      const traced = tracing.enabled
        ? (): ServerSpan | undefined =>
          tracing.server({
            method,
            route: route.template === UNMATCHED.template ? null : route.template,
            path,
            host: headerValue(request.headers, "host"),
            userAgent: headerValue(request.headers, "user-agent"),
            traceparent: headerValue(request.headers, "traceparent"),
            tracestate: headerValue(request.headers, "tracestate"),
            requestId,
            startedAt
          })
        : undefined
      const serverSpan = otlp ? undefined : traced?.()
      let ownTelemetryOnly = false
      if (cors !== undefined) {
        const origin = headerValue(request.headers, "origin")
        // A browser's preflight from an allowed origin: answered before the guards (it carries no key).
        const preflight = method === "OPTIONS" && headerValue(request.headers, "access-control-request-method") !== undefined
          ? cors.preflight(origin, headerValue(request.headers, "access-control-request-headers"))
          : undefined
        if (preflight !== undefined) {
          response.once("close", () => {
            countHttp("OPTIONS", "preflight", response.statusCode)
            serverSpan?.end(response.statusCode, null)
            tracker.finished()
          })
          const headers: Array<string> = [...SECURITY_FLAT, "x-request-id", requestId]
          for (const name in preflight) headers.push(name, preflight[name] ?? "")
          response.writeHead(204, headers)
          return void response.end()
        }
        // Every other response to an allowed origin carries its CORS headers, whoever writes it.
        const allowed = cors.headersFor(origin)
        if (allowed !== undefined) for (const name in allowed) response.setHeader(name, allowed[name] ?? "")
      }
      // An analyze request's pattern label: its slug, or `unknown` (label values stay bounded).
      const pattern = method === "POST" && path.startsWith(ANALYZE_PREFIX)
        ? (slugs.has(path.slice(ANALYZE_PREFIX.length)) ? path.slice(ANALYZE_PREFIX.length) : "unknown")
        : method === "POST" && path === DIAGNOSE_PATH
        ? DIAGNOSE_LABEL
        : null
      const knownPattern = pattern !== null && slugs.has(pattern)
      // Prepared replies exist for the analyze endpoints of known patterns only, and for bodies
      // alone: options in the query change the answer, and hits are kept by body.
      const replyable = knownPattern && !(request.url ?? "").includes("?")
      let failure: RequestFailure | null = null
      /** This request's share of the bytes held in flight, given back when its response closes. */
      const held = inflight.hold()

      response.once("close", () => {
        held.release()
        // A response that never ended: the client went away first (nginx's 499).
        const status = response.writableEnded ? response.statusCode : 499
        countHttp(method.length <= 7 ? method : "OTHER", route.template, status)
        if (status >= 500 && status !== 503) {
          Runtime.runFork(runtime, reporting.report({
            kind: failure?.kind ?? kindByStatus.get(status) ?? "internal_error",
            status,
            message: failure?.message ?? `HTTP ${status}`,
            requestId,
            pattern: failure?.pattern ?? pattern,
            mode: failure?.mode ?? null
          }))
        }
        if (logs) Runtime.runSync(runtime, accessLog(method, path, status, (performance.now() - startedAt) / 1000, requestId))
        if (traced !== undefined) (serverSpan ?? (otlp && !ownTelemetryOnly ? traced() : undefined))?.end(status, status >= 500 ? failure?.kind ?? kindByStatus.get(status) ?? null : null)
        tracker.finished()
      })

      /** An analyze request the edge answers itself is recorded here (the rest by its handler). */
      const recordHere = (status: AnalysisStatus, mode: Mode | "unknown" = "unknown") => {
        if (pattern !== null) recordAnalysis({ surface: "rest", pattern, mode, status }, (performance.now() - startedAt) / 1000)
      }
      const refuse = (error: ApiError, close: boolean) => {
        const reply = errorReply(error, otlp ? encodingOf(headerValue(request.headers, "content-type")) : undefined)
        const kind = errorKinds[error._tag].kind
        failure = { kind, message: error.message, pattern, mode: null }
        send(response, reply.status, reply.contentType, reply.body, requestId, reply.headers, close)
        recordHere(kind)
      }

      const proceed = (guarded: GuardOutcome): void => {
        // A refused request may still be sending its body: close rather than read it.
        if (guarded._tag === "Fail") return refuse(guarded.error, hasUnreadBody(request.headers))

        if (method === "GET") {
          const prepared = statics.get(path)
          if (prepared !== undefined) {
            return send(response, 200, prepared.contentType, prepared.body, requestId, guarded.headers, false)
          }
        }
        // the dashboard's shell and assets, to GET and HEAD (node sends no body to a HEAD)
        if ((method === "GET" || method === "HEAD") && isDashboardPath(path)) {
          const page = dashboard(path)
          if (page === undefined) {
            return refuse(new NotFound({ message: path.startsWith(DASHBOARD_ASSETS) ? "no such dashboard asset" : "the dashboard is not built (npm run build)" }), false)
          }
          return send(response, 200, page.contentType, page.body, requestId, { ...guarded.headers, ...page.headers }, false)
        }

        const handOn = (body: Uint8Array | null) => {
          for (const [name, value] of SECURITY) response.setHeader(name, value)
          for (const name in guarded.headers) response.setHeader(name, guarded.headers[name] ?? "")
          response.setHeader("x-request-id", requestId)
          const edge: EdgeRequest = {
            requestId,
            startedAt,
            keyName: guarded.keyName,
            caller: scopes.callerOf(guarded.keyName),
            body,
            noteFailure: (noted) => {
              failure ??= noted
            },
            charge: guards.charge(guarded.bucket),
            contain: (step) => guard(response, requestId, step),
            span: serverSpan?.span,
            ownTelemetryOnly: traced === undefined ? ignore : () => {
              ownTelemetryOnly = true
            }
          }
          if (path === MCP_PATH) return mcp(request, response, edge)
          if (knownPattern && pattern !== null) return analyze(pattern, request, response, edge)
          request.edge = edge
          app(request, response)
        }

        // A name outside the catalogue: 404 here, its body never read (the 404 comes first, DECISIONS §3). The app serves no
        // analyze route (Http.ts ServedApi): a known pattern's goes to AnalyzeAtEdge below.
        if (pattern === "unknown" && route.template !== UNMATCHED.template) return refuse(unknownPattern(decodeName(path.slice(ANALYZE_PREFIX.length))), false)
        // Bodies are read here, once, for the routes that take one (POST, and PATCH of a problem).
        if ((method !== "POST" && method !== "PATCH") || route.template === UNMATCHED.template) return handOn(null)
        // DECISIONS §16's order: bodies in flight (503) → encoding (415) → size (413). Each is
        // refused before a byte is read; the body is still coming, so the connection closes.
        const declared = Number(headerValue(request.headers, "content-length") ?? "0")
        if (!inflight.fits(Math.min(Number.isFinite(declared) ? declared : 0, limits.maxBodyBytes))) return refuse(overloaded(), true)
        const contentEncoding = headerValue(request.headers, "content-encoding")
        const unreadable = encodingRefusal(contentEncoding, otlp)
        if (unreadable !== null) return refuse(unreadable, true)
        if (declared > limits.maxBodyBytes) return refuse(bodyTooLarge(limits.maxBodyBytes), true)
        const answer = (outcome: BodyOutcome) => {
          switch (outcome._tag) {
            case "TooLarge":
              return refuse(bodyTooLarge(limits.maxBodyBytes), !request.complete)
            case "Overloaded":
              return refuse(overloaded(), true)
            case "Gone":
              // Nobody reads an answer; the close handler counts the 499.
              return recordHere("client_closed")
            case "Read": {
              // A hit answers only what its handler would have read the same way: a JSON body.
              const cacheScope = !replyable || !isJsonContentType(headerValue(request.headers, "content-type"))
                ? undefined
                : scopes.cacheScopeOf(guarded.keyName)
              const hit = pattern === null || cacheScope === undefined ? undefined : replies.lookup(cacheScope, pattern, outcome.bytes)
              if (hit === undefined) return handOn(outcome.bytes)
              send(response, 200, JSON_TYPE, hit.bytes, requestId, { ...guarded.headers, "x-cache": "hit" }, false)
              if (pattern !== null) countAnalysis(pattern, hit.mode, "cache_hit")
              return recordHere("cache_hit", hit.mode)
            }
          }
        }
        const gzipped = otlp && isGzip(contentEncoding)
        readBody(request, limits.maxBodyBytes, held, (read) => guard(response, requestId, () => {
          if (gzipped && read._tag === "Read") {
            return inflateBody(read.bytes, limits.maxBodyBytes, held, (inflated) => guard(response, requestId, () => {
              if (inflated._tag === "Undecodable") return refuse(new ValidationError({ message: "the body is not valid gzip (Content-Encoding: gzip)" }), false)
              answer(inflated)
            }))
          }
          answer(read)
        }))
      }

      // DNS rebinding (DECISIONS §16): /mcp always; every other route but the probes, metrics and
      // static docs when no key is required (with keys, a page on another origin has none).
      const operation = httpOperation(method, path, route)
      if (path === MCP_PATH || (!auth.required && operation.authenticated)) {
        const forbidden = hosts.refusal(headerValue(request.headers, "host"), headerValue(request.headers, "origin"))
        if (forbidden !== null) return refuse(forbidden, hasUnreadBody(request.headers))
      }

      const checked = guardsNow.check({
        key: presentedKey(request.headers),
        address: request.socket.remoteAddress,
        forwardedFor: headerValue(request.headers, "x-forwarded-for"),
        operation
      })
      // A rate limit kept in Redis answers later; the request goes on when it has.
      if (checked instanceof Promise) void checked.then((outcome) => guard(response, requestId, () => proceed(outcome)))
      else proceed(checked)
    }

    return (request: EdgeIncomingMessage, response: ServerResponse): void => {
      const requestId = requestIdFrom(headerValue(request.headers, "x-request-id"))
      guard(response, requestId, () => handle(request, response, requestId))
    }
  })
