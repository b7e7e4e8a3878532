/**
 * How a run whose trace could not be assembled gets it on its retry (DECISIONS §18, issue 47): the
 * OTLP assembly gives a trace up after repeated failures and makes it a run `failed:
 * assembly_error` that keeps only the trace's id, the spans kept beside it; a worker that claims
 * such a run (retried) reads the spans and asks this service for the document the assembly makes
 * of them. Provided by Otlp/Assembly.ts (`OtlpReassemblyLive`): the runs do not import the OTLP
 * receiver, it imports them.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { OtlpDocument } from "../Otlp/Wire/Model.js"

export interface TraceReassemblyShape {
  /**
   * A trace's kept span groups as the document the assembly submits (its `SubmitRunRequest`'s), and
   * the run's labels; dies with what the assembly threw (the run fails again with `assembly_error`).
   */
  readonly document: (groups: ReadonlyArray<{ readonly kind: string; readonly body: string }>) => Effect.Effect<{
    readonly document: OtlpDocument
    readonly labels: Readonly<Record<string, string>>
  }>
}

export class TraceReassembly extends Context.Tag("TraceReassembly")<TraceReassembly, TraceReassemblyShape>() {}
