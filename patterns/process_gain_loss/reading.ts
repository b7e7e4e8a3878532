/**
 * Process gain/loss from a raw trace: the run is the team's interaction, so `interaction_log` is
 * its events, one message per event, verbatim (referenced as interaction_log[i], which is
 * events[i]). The solo baselines and the team's quality are measurements of other runs and of an
 * eval: a trace cannot hold them, so they come from hints (`individual_baselines`, `team_result`).
 */
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const sources = new Map<string, string>()
  const interactionLog = trace.events.map((event, i) => {
    sources.set(`interaction_log[${i}]`, event.source)
    return {
      from: event.actor.trim().length > 0 ? event.actor : event.role,
      content: event.content,
      type: event.kind,
      ...(event.to === undefined || event.to.length === 0 ? {} : { to: event.to }),
      ...(event.timestamp === undefined || event.timestamp.length === 0 ? {} : { timestamp: event.timestamp })
    }
  })
  return { fields: interactionLog.length === 0 ? {} : { interaction_log: interactionLog }, sources }
}
