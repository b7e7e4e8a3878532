/**
 * What the edge knows of a request, handed down once to the app behind it. The edge (Edge.ts)
 * fills it before it passes the request on; the app provides it to its handlers as the
 * `CurrentRequest` service. Nothing below the edge writes to it: the one way up is `noteFailure`,
 * by which the app tells the edge why a request failed, for the error report the edge makes when
 * the response finishes.
 */
import type { CallerShape } from "../Auth/Who.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"
import { underSpan } from "../Observability/Tracing.js"
import { IncomingMessage } from "node:http"
import type { RateLimited } from "../Errors.js"

/** Why a request failed, as the part of the app that knows best describes it. */
export interface RequestFailure {
  readonly kind: string
  readonly message: string
  readonly pattern: string | null
  readonly mode: string | null
}

export interface EdgeRequest {
  readonly requestId: string
  /** When the edge received the request (performance.now()). */
  readonly startedAt: number
  /** The name of the API key the request presented and that verified, else null. */
  readonly keyName: string | null
  /** Who the request runs for (the `Caller` its handler is given), by the key name above. */
  readonly caller: CallerShape
  /** The body the edge read under the byte limit (POSTs to known routes), else null. */
  readonly body: Uint8Array | null
  /** Tells the edge why the request failed; the first note counts. */
  readonly noteFailure: (failure: RequestFailure) => void
  /**
   * Counts one more request against the rate-limit bucket this request was counted in (each
   * further tool call of an MCP batch, DECISIONS §5): fails with the refusal when over the limit.
   */
  readonly charge: Effect.Effect<void, RateLimited>
  /**
   * Runs a step of this request later (a callback) under the edge's last resort: a defect it
   * throws fails this request alone with a 500, logged once (Edge.ts).
   */
  readonly contain: (step: () => void) => void
  /** The request's server span when the service exports its spans (DECISIONS §21), else undefined. */
  readonly span: Tracer.AnySpan | undefined
  /**
   * Tells the edge the request carried only this service's own telemetry (the OTLP receiver): no
   * span is made of it, so a service exporting to itself, or through a Collector that sends back
   * to it, does not trace its own exports forever.
   */
  readonly ownTelemetryOnly: () => void
}

const NO_REQUEST: EdgeRequest = {
  requestId: "none",
  startedAt: 0,
  keyName: null,
  // No key verified: no scope, so a service that meets it fails closed.
  caller: { keyName: null, scope: undefined, scopes: undefined, role: null },
  body: null,
  noteFailure: () => undefined,
  charge: Effect.void,
  contain: (step) => step(),
  span: undefined,
  ownTelemetryOnly: () => undefined
}

/** The current request; a reference (with a default) so reading it adds no requirement. */
export class CurrentRequest extends Context.Reference<CurrentRequest>()("CurrentRequest", {
  defaultValue: () => NO_REQUEST
}) {}

/** `effect` under the request's server span, when there is one. */
export const underRequest = <A, E, R>(edge: EdgeRequest, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => underSpan(edge.span, effect)

/**
 * node's request object on this server (the `IncomingMessage` option of `http.createServer`),
 * carrying the edge's context to the app with the request itself.
 */
export class EdgeIncomingMessage extends IncomingMessage {
  edge: EdgeRequest | undefined = undefined
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The client's X-Request-ID when it is 1-128 characters of [A-Za-z0-9._:-], else a fresh one. */
export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && REQUEST_ID.test(header) ? header : crypto.randomUUID()
