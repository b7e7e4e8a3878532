/**
 * How a pattern reads a raw trace (DECISIONS §12): whether it accepts one, what a raw trace must be
 * accompanied by (`needs`, in words), and the code that derives the extras a trace cannot state
 * (`DeriveFromTrace`). Derived values are estimates made by code from the trace; they travel with
 * the trace in the prompt, after it, named as derived, and `hints` (the operator's word) always
 * win over them. Ground truth is never derived: a value only the operator can know comes from
 * `hints`, or the pattern says in `needs` that it requires it.
 */
import type { NormalizedTrace, TraceEvent } from "./Model.js"

export interface TraceReading {
  /** False when the pattern reads something a run cannot carry (labelled items, say). */
  readonly accepts: boolean
  /** What a raw trace must be accompanied by, in words; "" when nothing. */
  readonly needs: string
}

export const READS_ANY_TRACE: TraceReading = { accepts: true, needs: "" }

/** A pattern input projected from a normalized trace, with its refs' source pointers. */
export interface Projection {
  readonly input: Readonly<Record<string, unknown>>
  /** Named refs (`task`, `outcome`, `agents[2]`, …) → `span:ab12…`; refs without an entry have no single source. */
  readonly sources: ReadonlyMap<string, string>
  /** The input field holding one element per event (`steps[i]` is `events[i]`), when there is one. */
  readonly sequence: { readonly field: string; readonly events: ReadonlyArray<TraceEvent> } | undefined
}

/** What a pattern derives from a trace beyond its family's projection. */
export interface Derived {
  /** Input fields derived by code (estimates); a field also given in `hints` is not used. */
  readonly fields: Readonly<Record<string, unknown>>
  /** Source pointers of refs inside the derived fields (`routing_decisions[2]` → `span:…`). */
  readonly sources?: ReadonlyMap<string, string>
}

export type DeriveFromTrace = (trace: NormalizedTrace, base: Projection) => Derived
