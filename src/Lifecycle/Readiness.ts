/**
 * Readiness: `starting` until the server listens, `ready` while serving, `draining` from the
 * moment a shutdown signal arrives (DECISIONS §2, §7). Read on every /readyz, so it is a plain
 * cell behind a small service rather than a Ref.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export type ReadinessState = "starting" | "ready" | "draining"

export interface ReadinessShape {
  readonly current: Effect.Effect<ReadinessState>
  readonly set: (state: ReadinessState) => Effect.Effect<void>
}

export class Readiness extends Context.Tag("Readiness")<Readiness, ReadinessShape>() {}

export const makeReadiness = (initial: ReadinessState): ReadinessShape => {
  let state = initial
  return {
    current: Effect.sync(() => state),
    set: (next) =>
      Effect.sync(() => {
        // Draining is final: nothing moves a draining instance back to ready.
        if (state !== "draining") state = next
      })
  }
}

export const ReadinessLive = Layer.sync(Readiness, () => makeReadiness("starting"))
