/**
 * The background loops' failures (issue 47): a fiber forked with `Effect.repeat` or
 * `Effect.forever` ends without a word when an item dies, and a retry retries failures only. So
 * each loop (the OTLP assembly, the run workers, the outbox deliverers, the retention upkeeps)
 * catches the cause of an item or round, logs it with Effect.logError, counts it in
 * `svc_background_errors_total{loop}`, and goes on with the next. Interruption (shutdown, a lost
 * lease) is never caught.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { type BackgroundLoop, countBackgroundError } from "./Metrics.js"

/** A background loop's failed or dead item or round, logged with its cause and counted. */
export const reportBackgroundError = (loop: BackgroundLoop, message: string, cause: Cause.Cause<unknown>, annotations: Readonly<Record<string, unknown>> = {}) =>
  Effect.zipRight(Effect.sync(() => countBackgroundError(loop)), Effect.logError(message, cause).pipe(Effect.annotateLogs({ loop, ...annotations })))

/** A round of a loop that must not end it: its failure or defect reported, and the round over. */
export const containRound = (loop: BackgroundLoop, message: string) =>
<A, E, R>(round: Effect.Effect<A, E, R>): Effect.Effect<A | void, never, R> =>
  Effect.catchAllCause(round, (cause) => (Cause.isInterruptedOnly(cause) ? Effect.interrupt : reportBackgroundError(loop, message, cause)))

/** What a defect says, in a line (the log holds the whole cause): the error's name and message. */
export const defectSummary = (cause: Cause.Cause<unknown>, max = 300): string => {
  const error = Cause.squash(cause)
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text.length > max ? `${text.slice(0, max)}…` : text
}
