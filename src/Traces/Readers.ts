/**
 * The trace readers (Normalize.ts and the importer of every format: about 350 KB of code) are
 * loaded when a request first reads a trace, not at start-up (issue 52, docs/performance.md): a
 * service answering probes, the catalogue, stored runs or OTLP intake never compiles them. The
 * first request waits for the load once; after it, `traceReaders` is a value at hand.
 */
import * as Effect from "effect/Effect"

export type TraceReaders = typeof import("./Normalize.js")

let loaded: TraceReaders | undefined

/** The readers, loading them on first use. */
export const traceReaders: Effect.Effect<TraceReaders> = Effect.suspend(() =>
  loaded !== undefined ? Effect.succeed(loaded) : Effect.map(Effect.promise(() => import("./Normalize.js")), (readers) => (loaded = readers))
)
