/**
 * The end of a REST request a handler answers: recorded once in `svc_requests_total` (typed
 * labels) and, when it failed, noted to the edge for its error report. One owner for analyze and
 * diagnose alike.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type { Mode } from "../../Catalogue/Resources.js"
import type { EdgeRequest } from "../../Edge/RequestContext.js"
import type { ApiError } from "../../Errors.js"
import { recordAnalysis, statusOfExit } from "../../Observability/Metrics.js"

export const settleRest = <A, E extends ApiError>(
  edge: EdgeRequest,
  pattern: string,
  mode: Mode | "unknown",
  exit: Exit.Exit<A, E>,
  cached: (value: A) => boolean
) =>
  Effect.sync(() => {
    const status = statusOfExit(exit, cached)
    recordAnalysis({ surface: "rest", pattern, mode, status }, (performance.now() - edge.startedAt) / 1000)
    if (exit._tag === "Failure" && status !== "client_closed") {
      const failure = Cause.failureOption(exit.cause)
      edge.noteFailure({
        kind: status,
        message: failure._tag === "Some" ? failure.value.message : "unexpected failure",
        pattern,
        mode: mode === "unknown" ? null : mode
      })
    }
  })
