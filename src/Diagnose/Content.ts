/**
 * What a report says of a trace without message content (DECISIONS §23): which instrumentation
 * recorded it and the one setting that turns content on for it, or every instrumentation's setting
 * when the trace does not tell (a format without instrumentation scopes, spans of no known one).
 */
import type { ReportContent } from "../Contract/DiagnoseReport.js"
import { CONTENT_SETTINGS, EVERY_CONTENT_SETTING } from "../Traces/ContentSettings.js"
import type { NormalizedTrace } from "../Traces/Model.js"

/** The report's `content`: undefined for a trace with content. */
export const contentOf = (trace: NormalizedTrace): ReportContent | undefined => {
  if (trace.content !== "absent") return undefined
  const known = trace.instrumentation
  return known === undefined
    ? { absent: true, instrumentation: null, setting: EVERY_CONTENT_SETTING }
    : { absent: true, instrumentation: known, setting: CONTENT_SETTINGS[known].setting }
}

/** The setting to name in a sentence: with its instrumentation's name when known. */
export const settingSentence = (content: ReportContent): string =>
  content.instrumentation === null
    ? `turn content on where the agent runs: ${content.setting}`
    : `turn content on with ${content.setting} (${CONTENT_SETTINGS[content.instrumentation].name})`

/** A triage entry's `skipped` for a lens of a content-free trace: `no_content`, then how to turn content on. */
export const noContentReason = (content: ReportContent | undefined): string =>
  content === undefined ? "no_content" : `no_content: ${settingSentence(content)}`
