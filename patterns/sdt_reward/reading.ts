/**
 * SDT reward from a raw trace. `extrinsic_signals` are the sentences of the set-up (system and
 * user messages) that name a metric, score, rating, reward, KPI, quota, bonus or penalty,
 * verbatim; an empty list when the set-up names none (the schema's "none"). `user_purpose` is the
 * user's request, verbatim, when the trace has one.
 */
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const EXTRINSIC =
  /\b(metrics?|kpis?|rewards?|rewarded|rating|ratings|rated|scores?|scored|scoring|quotas?|leaderboards?|bonus(es)?|penalt(y|ies)|penali[sz]ed|csat|nps|pass rates?|graded?|grader|benchmark\w*|incentiv\w*|commission)\b/i

/** A message's sentences (and lines), trimmed, non-empty. */
export const sentences = (text: string): Array<string> =>
  text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0)

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const sources = new Map<string, string>()
  const signals: Array<string> = []
  // Beside the list, for the duplicate check (`includes` on the growing list was quadratic).
  const seen = new Set<string>()
  for (const event of trace.events) {
    if ((event.role !== "system" && event.role !== "user") || event.kind !== "message") continue
    for (const sentence of sentences(event.content)) {
      if (!EXTRINSIC.test(sentence) || seen.has(sentence)) continue
      sources.set(`extrinsic_signals[${signals.length}]`, event.source)
      signals.push(sentence)
      seen.add(sentence)
    }
  }
  const user = trace.events.find((event) => event.role === "user" && event.kind === "message" && event.content.trim().length > 0)
  if (user !== undefined) sources.set("user_purpose", user.source)
  return { fields: { extrinsic_signals: signals, ...(user === undefined ? {} : { user_purpose: user.content }) }, sources }
}
