/**
 * The node:http fast path: requests whose answer is bytes prepared in advance are answered on
 * node's request event, before the Effect server builds its per-request machinery (which costs
 * about 200 µs a request on this hardware; see docs/performance.md):
 * - GETs of the static resources (health, liveness, the catalogue and its per-pattern documents);
 * - analyze POSTs whose body is identical to one already validated and whose detection is cached.
 * Both run the same guards (Guards.ts), send the same headers, count the same metrics and write
 * the same access log as the Effect middleware. An analyze request that is not a cache hit is
 * handed on to the Effect server with what was done (Handoff: guards passed, body read), so
 * nothing is run or counted twice. Everything else goes to the Effect server untouched; the
 * HttpApi contract still describes (and its handlers still serve) every route.
 */
import { Effect, FiberRef, LogLevel, Runtime } from "effect"
import { IncomingMessage, Server, ServerResponse } from "node:http"
import { AnalyzeHandlers } from "../Analysis/AnalyzeHandlers.js"
import type { ApiError } from "../Errors.js"
import { errorKinds } from "../Errors.js"
import { AppConfig } from "../Config.js"
import { RequestTracker } from "../Lifecycle/Lifecycle.js"
import { countHttpNow, recordAnalyzeNow } from "../Observability/Metrics.js"
import { isJsonContentType, subscribeBody } from "./Body.js"
import { headerValue, makeGuards } from "./Guards.js"
import { ANALYZE_PREFIX } from "./Middleware.js"
import { accessLog, errorReply, hasUnreadBody, pathOf, SECURITY_HEADERS } from "./Replies.js"
import { handoffs, requestIdFrom } from "./RequestContext.js"
import { routeTemplate } from "./Routes.js"
import { makeStaticResponses } from "./StaticResponses.js"

/** Answers a request and returns true, or returns false to leave it to the Effect server. */
export type FastHandler = (request: IncomingMessage, response: ServerResponse) => boolean

/** A node:http server whose request events pass the fast path first. */
export class FastServer extends Server {
  fast: FastHandler | undefined = undefined

  override emit(event: string, ...args: Array<unknown>): boolean {
    if (event === "request" && this.fast !== undefined) {
      const [request, response] = args
      if (request instanceof IncomingMessage && response instanceof ServerResponse && this.fast(request, response)) return true
    }
    return super.emit(event, ...args)
  }

  /** Gives a request the fast path took up to the Effect server after all. */
  forward(request: IncomingMessage, response: ServerResponse): void {
    super.emit("request", request, response)
  }
}

const SECURITY = Object.entries(SECURITY_HEADERS).flat()
/**
 * The fast path reads a body into a buffer of its declared length, allocated up front; larger
 * bodies (allowed when SVC_API_MAX_BODY_BYTES is raised) are handed on unread, so a declared
 * length alone never reserves more than this.
 */
const FAST_BODY_MAX_BYTES = 8 * 1024 * 1024
const JSON_TYPE = "application/json"

export const makeFastPath = (slugs: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const guards = yield* makeGuards
    const statics = yield* makeStaticResponses
    const tracker = yield* RequestTracker
    const handlers = yield* AnalyzeHandlers
    const { limits } = yield* AppConfig
    const runtime = yield* Effect.runtime<never>()
    const logs = LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Info)
    const log = (method: string, path: string, status: number, startedAt: number, requestId: string) => {
      if (logs) Runtime.runSync(runtime, accessLog(method, path, status, (performance.now() - startedAt) / 1000, requestId))
    }

    const send = (
      response: ServerResponse,
      status: number,
      contentType: string,
      body: Uint8Array | string,
      requestId: string,
      extra: Readonly<Record<string, string>>,
      close: boolean
    ) => {
      const headers: Array<string> = ["content-type", contentType, "content-length", String(Buffer.byteLength(body)), ...SECURITY]
      for (const name in extra) headers.push(name, extra[name] ?? "")
      headers.push("x-request-id", requestId)
      if (close) headers.push("connection", "close")
      response.writeHead(status, headers)
      response.end(body)
    }
    const refuse = (request: IncomingMessage, response: ServerResponse, error: ApiError, requestId: string) => {
      const reply = errorReply(error)
      // A refused request may still be sending its body: close rather than read it.
      send(response, reply.status, JSON_TYPE, reply.body, requestId, reply.headers, hasUnreadBody(request.headers))
      return reply.status
    }

    const serveStatic = (request: IncomingMessage, response: ServerResponse, path: string, route: string, contentType: string, body: Uint8Array) => {
      const startedAt = performance.now()
      const requestId = requestIdFrom(headerValue(request.headers, "x-request-id"))
      const outcome = guards.check(request.headers, request.socket.remoteAddress, path)
      let status = 200
      if (outcome._tag === "Fail") status = refuse(request, response, outcome.error, requestId)
      else send(response, 200, contentType, body, requestId, outcome.headers, false)
      countHttpNow("GET", route, status)
      log("GET", path, status, startedAt, requestId)
    }

    const analyze = (server: FastServer, request: IncomingMessage, response: ServerResponse, path: string, slug: string) => {
      const startedAt = performance.now()
      tracker.started()
      const requestId = requestIdFrom(headerValue(request.headers, "x-request-id"))
      const route = routeTemplate("POST", path)
      const done = (status: number, mode: string, outcome: string) => {
        countHttpNow("POST", route, status)
        recordAnalyzeNow({ surface: "rest", pattern: slug, mode, status: outcome }, (performance.now() - startedAt) / 1000)
        log("POST", path, status, startedAt, requestId)
        tracker.finished()
      }
      const guarded = guards.check(request.headers, request.socket.remoteAddress, path)
      if (guarded._tag === "Fail") {
        const status = refuse(request, response, guarded.error, requestId)
        return done(status, "unknown", errorKinds[guarded.error._tag].kind)
      }
      const handOn = (body: Uint8Array | undefined) => {
        handoffs.set(request, { requestId, startedAt, limitHeaders: guarded.headers, body })
        server.forward(request, response)
      }
      const declared = headerValue(request.headers, "content-length")
      const length = declared === undefined ? Number.NaN : Number(declared)
      // Only bodies that could be a hit are read here; every refusal is the Effect server's.
      if (
        !(length > 0 && length <= Math.min(limits.maxBodyBytes, FAST_BODY_MAX_BYTES)) ||
        request.headers["transfer-encoding"] !== undefined ||
        !isJsonContentType(headerValue(request.headers, "content-type"))
      ) {
        return handOn(undefined)
      }
      const buffer = Buffer.allocUnsafe(length)
      let received = 0
      const onData = (chunk: Buffer) => {
        received += chunk.copy(buffer, received)
      }
      const onEnd = () => {
        cleanup()
        const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, received)
        const hit = handlers.cachedResponse(slug, bytes)
        if (hit === undefined) return handOn(bytes)
        send(response, 200, JSON_TYPE, hit.bytes, requestId, { ...guarded.headers, "x-cache": "hit" }, false)
        done(200, hit.mode, "cache_hit")
      }
      // The client went away before its body ended: nobody reads an answer (as the Effect path, 499).
      const onGone = () => {
        cleanup()
        done(499, "unknown", "validation_error")
      }
      const cleanup = subscribeBody(request, { data: onData, end: onEnd, error: onGone, aborted: onGone })
    }

    return (server: FastServer): FastHandler => (request, response) => {
      const method = request.method
      const url = request.url ?? "/"
      if (method === "GET") {
        const path = pathOf(url)
        const prepared = statics.get(path)
        // A misconfigured service answers (and reports) its 500s through the Effect server.
        if (prepared === undefined || guards.misconfigured(path)) return false
        serveStatic(request, response, path, prepared.route, prepared.contentType, prepared.body)
        return true
      }
      if (method === "POST" && handlers.cacheEnabled && url.startsWith(ANALYZE_PREFIX)) {
        const path = pathOf(url)
        const slug = path.slice(ANALYZE_PREFIX.length)
        if (!slugs.has(slug) || guards.misconfigured(path)) return false
        analyze(server, request, response, path, slug)
        return true
      }
      return false
    }
  })
