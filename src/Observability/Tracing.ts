/**
 * The service's own spans (DECISIONS §21): the one owner of tracing. Nothing else in src/ makes a
 * span (test/observability/tracing-structure.test.ts keeps it so).
 *
 * - `Tracing` is a reference read once where a service is built: off (the default, and whenever no
 *   OTLP endpoint is configured), its `span` returns the effect it is given and its `server` returns
 *   undefined, so the hot path holds no tracing code and makes no span object.
 * - On, the OpenTelemetry SDK is loaded (OtelExport.ts, a chunk of its own) and Effect's tracer
 *   becomes OpenTelemetry's: a server span per request (Edge.ts, continuing `traceparent`), a span
 *   per run (the worker), diagnose, lens (each pattern's analysis) and model call (GenAI
 *   conventions, Engine.ts).
 * - In both, the tracer is `guarded` (`guardedTracer`): off, the spans the libraries make on their
 *   own (SQL statements, the MCP server's RPC) get one shared inert span, neither exported nor
 *   allocated; on, so does any span that would start a trace but a request's or a run's (the
 *   workers' polling statements).
 * - A failed span carries its error's kind (`error.type`, the status message), never its message,
 *   which may quote a trace, unless SVC_OTEL_CAPTURE_CONTENT=true.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { AppConfig, type AppConfigShape } from "../Config.js"
import { errorKinds } from "../Errors.js"

/** One span shared by everything not traced: it records nothing and ends nothing. */
const inert: Tracer.Span = {
  _tag: "Span",
  name: "untraced",
  spanId: "0000000000000000",
  traceId: "00000000000000000000000000000000",
  parent: Option.none(),
  context: Context.empty(),
  status: { _tag: "Started" as const, startTime: 0n },
  attributes: new Map<string, unknown>(),
  links: [],
  sampled: false,
  kind: "internal",
  end: () => undefined,
  attribute: () => undefined,
  event: () => undefined,
  addLinks: () => undefined
}
export const INERT_SPAN: Tracer.Span = Object.freeze(inert)

/**
 * Spans the libraries make on their own, whatever the service asks: @effect/sql's statements and
 * transactions, @effect/ai's MCP server (its RPC calls and notifications).
 */
const LIBRARY_SPANS = /^(sql\.|McpServer)/

/**
 * The tracer the service runs with, over `base` (OpenTelemetry's when `exporting`, else the one it
 * inherited), answering with the one inert span:
 * - anything under the inert span;
 * - not exporting: the libraries' spans (the rest goes to `base`, where a test can count it);
 * - exporting: a span that starts a trace without being one of the service's roots (a request, a
 *   run: `root`), such as the workers' polling statements and MCP's notifications.
 */
export const guardedTracer = (base: Tracer.Tracer, exporting: boolean): Tracer.Tracer =>
  Tracer.make({
    span(name, parent, context, links, startTime, kind, options) {
      if (parent._tag === "Some" && parent.value === INERT_SPAN) return INERT_SPAN
      if (exporting ? parent._tag === "None" && options?.root !== true : LIBRARY_SPANS.test(name)) return INERT_SPAN
      return base.span(name, parent, context, links, startTime, kind, options)
    },
    // Effect calls this on every step of every fiber: off, the tracer's own (the native one runs the
    // step as it is); exporting, the step as it is too: OpenTelemetry's context is for its own
    // instrumentations, which the service has none of, and entering it on each step cost 40% of an
    // analysis's CPU (docs/operations.md)
    context: exporting ? (execution) => execution() : base.context
  })

/** `effect` under `span` (a request's server span) when there is one. */
export const underSpan = <A, E, R>(span: Tracer.AnySpan | undefined, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  span === undefined ? effect : Effect.withParentSpan(effect, span)

/** An attribute's value as OpenTelemetry takes it: a primitive or a list of strings or numbers. */
export type AttributeValue = string | number | boolean | ReadonlyArray<string> | ReadonlyArray<number>

/** Sets an attribute of a span to the end of it: `onEnd`'s setter. */
export type SetAttribute = (key: string, value: AttributeValue) => void

/**
 * The setter of `span`'s attributes. `@effect/opentelemetry` turns a list into its text, so a list
 * (`gen_ai.response.finish_reasons`) is set on the OpenTelemetry span under it, which takes lists.
 */
const setterOf = (span: Tracer.Span): SetAttribute => (key, value) => {
  if (!Array.isArray(value)) return span.attribute(key, value)
  const otel: unknown = "span" in span ? span.span : undefined
  if (typeof otel === "object" && otel !== null && "setAttribute" in otel && typeof otel.setAttribute === "function") otel.setAttribute(key, value)
  else span.attribute(key, value.join(","))
}

/** What a span is told when it starts, and at its end. */
export interface SpanSpec<A, E> {
  readonly kind?: Tracer.SpanKind
  readonly attributes?: Readonly<Record<string, unknown>>
  readonly links?: ReadonlyArray<Tracer.SpanLink>
  /** A trace of its own (a run: its worker is not inside any request). */
  readonly root?: boolean
  /** Attributes known once the effect ended. */
  readonly onEnd?: (exit: Exit.Exit<A, E>, set: SetAttribute) => void
}

/** One HTTP request as the edge sees it. */
export interface ServerRequest {
  readonly method: string
  /** The route template (`/v1/runs/{id}`), null when no route matched. */
  readonly route: string | null
  readonly path: string
  readonly host: string | undefined
  readonly userAgent: string | undefined
  readonly traceparent: string | undefined
  readonly tracestate: string | undefined
  readonly requestId: string
  /** performance.now() when the request arrived. */
  readonly startedAt: number
}

/** The server span of a request: the parent of what the request runs, ended with its status. */
export interface ServerSpan {
  readonly span: Tracer.AnySpan
  /** Ends the span: its status code, and the error kind of a 5xx. */
  readonly end: (status: number, errorKind: string | null) => void
}

export interface TracingShape {
  readonly enabled: boolean
  /** SVC_OTEL_CAPTURE_CONTENT: prompts, answers and failure messages on spans. */
  readonly captureContent: boolean
  /** `self` inside a span (off: `self` itself). */
  readonly span: <A, E, R>(self: Effect.Effect<A, E, R>, name: string, spec?: SpanSpec<A, E>) => Effect.Effect<A, E, R>
  /** A server span for a request, started when it arrived (off: undefined). */
  readonly server: (request: ServerRequest) => ServerSpan | undefined
  /** Sets attributes of the current span (what a run came to). */
  readonly annotate: (attributes: Readonly<Record<string, AttributeValue>>) => Effect.Effect<void>
  /** Links the current span to a span of another trace (a run to the user's trace it diagnoses). */
  readonly link: (traceId: string, spanId: string, attributes: Readonly<Record<string, unknown>>) => Effect.Effect<void>
}

export const TRACING_OFF: TracingShape = {
  enabled: false,
  captureContent: false,
  span: (self) => self,
  server: () => undefined,
  annotate: () => Effect.void,
  link: () => Effect.void
}

/** The service's tracing, read once where a service is built; off unless TracingLive turned it on. */
export class Tracing extends Context.Reference<Tracing>()("Tracing", { defaultValue: () => TRACING_OFF }) {}

// ---------------------------------------------------------------------------------------------
// On

/** The kind of a failure: a documented error's kind, another tagged error's tag, `defect`. */
export const errorTypeOf = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) return Cause.isInterruptedOnly(cause) ? "interrupted" : "defect"
  const error = failure.value
  if (typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string") {
    const tag = error._tag
    return Object.entries(errorKinds).find(([name]) => name === tag)?.[1].kind ?? tag
  }
  return "error"
}

const messageOf = (cause: Cause.Cause<unknown>): string | undefined => {
  const failure = Cause.failureOption(cause)
  const error = Option.getOrUndefined(failure)
  return typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" ? error.message : undefined
}

/** An error that says only what `errorType` says (and the message when content is captured). */
const failureFor = (type: string, message: string | undefined): Exit.Exit<never, Error> => {
  const error = new Error(message ?? type)
  error.name = type
  error.stack = `${type}: ${message ?? type}`
  return Exit.fail(error)
}

/** The exit a span ends with: success, interruption, or a failure reduced to its kind. */
const endExit = (exit: Exit.Exit<unknown, unknown>, span: Tracer.Span, captureContent: boolean): Exit.Exit<unknown, unknown> => {
  if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return exit
  const type = errorTypeOf(exit.cause)
  span.attribute("error.type", type)
  return failureFor(type, captureContent ? messageOf(exit.cause) : undefined)
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

/** The caller's span of W3C Trace Context's `traceparent`, when it is one (version ff and zero ids refused). */
export const parentOf = (
  traceparent: string | undefined,
  external: (parsed: { readonly traceId: string; readonly spanId: string; readonly traceFlags: number; readonly traceState: string | undefined }) => Tracer.ExternalSpan,
  tracestate: string | undefined
): Option.Option<Tracer.AnySpan> => {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent.trim().toLowerCase())
  if (match === null) return Option.none()
  const [, version = "", traceId = "", spanId = "", flags = "", rest] = match
  if (version === "ff" || (version === "00" && rest !== undefined) || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return Option.none()
  return Option.some(external({ traceId, spanId, traceFlags: Number.parseInt(flags, 16), traceState: tracestate }))
}

/** Nanoseconds since the epoch of a performance.now() reading. */
const epochNanos = (at: number): bigint => BigInt(Math.round((performance.timeOrigin + at) * 1000)) * 1000n

const serverAttributes = (request: ServerRequest): Record<string, unknown> => {
  const attributes: Record<string, unknown> = {
    "http.request.method": request.method,
    "url.path": request.path,
    "url.scheme": "http",
    "svc.request.id": request.requestId
  }
  if (request.route !== null) attributes["http.route"] = request.route
  if (request.host !== undefined) {
    const at = request.host.lastIndexOf(":")
    const bracketed = request.host.startsWith("[")
    const hasPort = at > 0 && (!bracketed || request.host.indexOf("]") < at)
    attributes["server.address"] = hasPort ? request.host.slice(0, at) : request.host
    if (hasPort) attributes["server.port"] = Number(request.host.slice(at + 1))
  }
  if (request.userAgent !== undefined) attributes["user_agent.original"] = request.userAgent
  return attributes
}

/** Tracing on, over the tracer the service runs with (`guardedTracer` of OpenTelemetry's). */
export const tracingOn = (
  tracer: Tracer.Tracer,
  captureContent: boolean,
  external: Parameters<typeof parentOf>[1]
): TracingShape => ({
  enabled: true,
  captureContent,
  span: <A, E, R>(self: Effect.Effect<A, E, R>, name: string, spec: SpanSpec<A, E> = {}) =>
    Effect.acquireUseRelease(
      Effect.makeSpan(name, {
        kind: spec.kind ?? "internal",
        attributes: spec.attributes,
        links: spec.links,
        root: spec.root,
        captureStackTrace: false
      }),
      (span) => Effect.withParentSpan(self, span),
      (span, exit) =>
        Effect.flatMap(Clock.currentTimeNanos, (now) =>
          Effect.sync(() => {
            spec.onEnd?.(exit, setterOf(span))
            span.end(now, endExit(exit, span, captureContent))
          }))
    ),
  annotate: (attributes) =>
    Effect.currentSpan.pipe(
      Effect.flatMap((span) =>
        Effect.sync(() => {
          const set = setterOf(span)
          for (const [key, value] of Object.entries(attributes)) set(key, value)
        })
      ),
      Effect.ignore
    ),
  link: (traceId, spanId, attributes) =>
    Effect.currentSpan.pipe(
      Effect.flatMap((span) =>
        Effect.sync(() => span.addLinks([{ _tag: "SpanLink", span: Tracer.externalSpan({ traceId, spanId, sampled: true }), attributes }]))
      ),
      Effect.ignore
    ),
  server: (request) => {
    const parent = parentOf(request.traceparent, external, request.tracestate)
    const name = request.route === null ? request.method : `${request.method} ${request.route}`
    const span = tracer.span(name, parent, Context.empty(), [], epochNanos(request.startedAt), "server", { root: Option.isNone(parent) })
    for (const [key, value] of Object.entries(serverAttributes(request))) span.attribute(key, value)
    return {
      span,
      end: (status, errorKind) => {
        // 499: the client went away before an answer; no status was sent
        if (status !== 499) span.attribute("http.response.status_code", status)
        const now = epochNanos(performance.now())
        if (status < 500) return span.end(now, Exit.void)
        const type = errorKind ?? String(status)
        span.attribute("error.type", type)
        span.end(now, failureFor(type, undefined))
      }
    }
  }
})

/**
 * The service's tracing as configured: off (Effect's own tracer kept, SQL spans inert) unless an
 * OTLP traces endpoint is set, then OpenTelemetry's SDK, loaded here, flushed and shut down when
 * the scope closes.
 */
export const TracingLive: Layer.Layer<Tracing, never, AppConfig> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const { telemetry } = yield* AppConfig
    const inherited = yield* Effect.tracer
    if (Option.isNone(telemetry.traces)) return Layer.merge(Layer.setTracer(guardedTracer(inherited, false)), Layer.succeed(Tracing, TRACING_OFF))
    const { makeOtelTracer } = yield* Effect.promise(() => import("./OtelExport.js"))
    const exported = yield* makeOtelTracer(telemetry, telemetry.traces.value)
    const tracer = guardedTracer(exported.tracer, true)
    return Layer.merge(Layer.setTracer(tracer), Layer.succeed(Tracing, tracingOn(tracer, telemetry.captureContent, exported.external)))
  })
)

/** The telemetry settings a test or a tool starts from (nothing exported). */
export type TelemetryConfig = AppConfigShape["telemetry"]
