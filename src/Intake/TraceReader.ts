/**
 * Normalizing a trace as a service (DECISIONS §12), for every surface: the body as it is or in the
 * envelope `{trace, format?, select?}`, under the configured trace limits.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Caller } from "../Auth/Caller.js"
import { NO_QUERY, type QueryOptions } from "./Intake.js"
import { type NormalizeRequest, readTraceIntake } from "./Requests.js"
import { AppConfig } from "../Config.js"
import type { InternalError, RequestTooLarge, UnsupportedTraceFormat, ValidationError } from "../Errors.js"
import { Tracing } from "../Observability/Tracing.js"
import { Redaction } from "../Redaction/Redaction.js"
import { redactTrace } from "../Redaction/Trace.js"
import type { NormalizedTrace, TraceFormat } from "../Traces/Model.js"
import { traceReaders } from "../Traces/Readers.js"

export type NormalizeResult =
  | { readonly format: TraceFormat; readonly events: number; readonly trace: NormalizedTrace }
  | { readonly format: TraceFormat; readonly traces: ReadonlyArray<NormalizedTrace> }

export interface TraceReaderShape {
  readonly normalize: (
    body: Record<string, unknown> | Array<unknown>,
    /** `format` and `select` given as query parameters (REST), used where the body gives none. */
    query?: QueryOptions
  ) => Effect.Effect<NormalizeResult, ValidationError | UnsupportedTraceFormat | RequestTooLarge | InternalError, Caller>
}

export class TraceReader extends Context.Tag("TraceReader")<TraceReader, TraceReaderShape>() {}

export const TraceReaderLive = Layer.effect(
  TraceReader,
  Effect.gen(function*() {
    const { limits } = yield* AppConfig
    const redaction = yield* Redaction
    const tracing = yield* Tracing
    return {
    normalize: (body, query = NO_QUERY) =>
      tracing.span(Effect.gen(function*() {
        // Normalize's request is the first phase of every request's intake (src/Intake/Requests.ts).
        const readers = yield* traceReaders
        const { format, parts, select }: NormalizeRequest = yield* readTraceIntake(readers, body, query)
        // the caller's scope's redaction key (DECISIONS §20)
        const redactor = yield* redaction.forCaller
        const normalized = yield* readers.normalizeTrace(parts.trace, format, limits, redactTrace(redactor))
        const only = normalized.traces[0]
        if (select === undefined && normalized.traces.length > 1) return { format: normalized.format, traces: normalized.traces }
        const trace = select === undefined && only !== undefined ? only : yield* readers.selectTrace(normalized, select)
        return { format: normalized.format, events: trace.events.length, trace }
      }), "normalize")
    }
  })
)

