/**
 * `provider_error` (DECISIONS §23): the agent's own model calls failed at the provider: rate limited
 * (429, "rate limit", `insufficient_quota`), the provider down or overloaded (5xx, Anthropic's 529
 * "Overloaded"), or the key refused (401/403, `AuthenticationError`). Read on the agent's failed
 * model calls (its messages with status error, its error events), not on tools. A failure the agent
 * recovered from (a later output of the same agent that did not fail: a retry that worked) does not
 * fire, nor does an agent's error that names a tool (a tool's failure carried up to the agent's
 * span); context overflows and turn limits are their own checks. One finding per agent and status.
 */
import type { TraceEvent } from "../Traces/Model.js"
import type { Check, Cited, RawFinding } from "./Check.js"
import { errorTextOf, firstWordsOf } from "./Errors.js"
import { anyOf, failureReportsOverflow, failureTextsOf, turnLimitTextOf } from "./Stops.js"
import { hasText } from "./View.js"

/** An HTTP status where a message gives one: `Error code: 429`, `RateLimitError: 429`, `HTTP 503`, `status 401`, or at the start (`400 The model …`). */
const STATUS = /(?:^|\b(?:HTTP\/?[\d.]*|status(?: code)?|code)|[A-Za-z]{0,40}Error)[\s:=]*([45]\d\d)\b/i
const QUOTA = /\binsufficient_quota\b|\bexceeded your current quota\b|\bcredit balance is too low\b|\bbilling hard limit\b/i
const RATE = /\brate[ _-]?limit|\bRateLimitError\b|\btoo many requests\b|\bRESOURCE_EXHAUSTED\b/i
const OVERLOADED = /\boverloaded/i
const SERVER = /\b(?:InternalServerError|APIConnectionError|APITimeoutError|ServiceUnavailableError|internal server error|service unavailable|bad gateway|gateway time-?out|server had an error|server_error|api_error)\b/i
const AUTH = /\b(?:AuthenticationError|authentication_error|invalid[ _-]api[ _-]key|incorrect api key|invalid x-api-key|unauthori[sz]ed)\b/i
const FORBIDDEN = /\b(?:PermissionDeniedError|permission_error)\b/i

/** Any of the wordings above, in one search: most failures hold none, and are searched once instead of six times. */
const anyWording = anyOf([QUOTA, RATE, OVERLOADED, SERVER, AUTH, FORBIDDEN])

/** A text with no 4xx or 5xx number in it (most) is not read for `STATUS`, whose search is dear on long texts. */
const ERROR_NUMBER = /[45]\d\d/

/** The status a text gives: the whole of it when it is a three-digit code, else `STATUS`'s. */
const statusIn = (text: string): string | undefined => {
  const trimmed = text.trim()
  if (/^\d{3}$/.test(trimmed)) return trimmed
  return ERROR_NUMBER.test(text) ? STATUS.exec(text)?.[1] : undefined
}

/** The provider's status of a failed model call (`429`, `503`, `401`, `insufficient_quota`), or undefined when it is not a provider failure. */
export const providerStatusOf = (texts: ReadonlyArray<string>): string | undefined => {
  const text = texts.join("\n")
  const numeric = texts.map(statusIn).find((each) => each !== undefined)
  const provider = numeric !== undefined && (numeric === "429" || numeric.startsWith("5") || numeric === "401" || numeric === "403")
  if (!provider && !anyWording(text)) return undefined
  if (QUOTA.test(text)) return "insufficient_quota"
  if (provider) return numeric
  if (RATE.test(text)) return "429"
  if (OVERLOADED.test(text)) return "529"
  if (SERVER.test(text)) return "500"
  if (FORBIDDEN.test(text)) return "403"
  if (AUTH.test(text)) return "401"
  return undefined
}

const WHAT: Readonly<Record<string, string>> = { "429": "rate limited", insufficient_quota: "out of quota", "401": "refused the key", "403": "refused the key's permissions" }
const whatOf = (status: string): string => WHAT[status] ?? "failed on the provider's side"

/** An agent's error that names a tool (`refund_charge failed: gateway timeout`, `Error executing tool …`) is the tool's failure carried up, not the model's. */
const namesTool = (text: string, called: ReadonlySet<string>): boolean => {
  if (/\btool\b/i.test(text)) return true
  if (called.size === 0) return false
  for (const word of text.match(/[A-Za-z_][\w.-]*/g) ?? []) if (called.has(word)) return true
  return false
}

/** A model call of the agent: its own message, reasoning or error, not a tool's. */
const isModelCall = (event: TraceEvent): boolean => event.role === "agent" && event.tool === undefined && event.call_id === undefined && (event.kind === "message" || event.kind === "thought" || event.kind === "error")

/** What the agent did itself: a model call, or a tool call it made. */
const isAgentCall = (event: TraceEvent): boolean => isModelCall(event) || (event.role === "agent" && event.kind === "tool_call")

export const providerError: Check = {
  id: "provider_error",
  title: "The agent's model calls failed at the provider",
  severity: "high",
  rule:
    "A model call of the agent failed with a rate limit (429, rate limit, insufficient_quota), a provider failure (5xx, overloaded) or a refused key (401, 403), and the agent made no successful call after it.",
  reads: "structure",
  playbooks: ["lewin/environmental.resource_exhaustion", "superflocks/star_dependency.single_point_of_failure", "aar/plan_flawed.no_contingency"],
  fingerprint: ["error_class", "agent"],
  run: (view) => {
    // The agent's failed model calls with a provider's status, read from the failed events alone:
    // most traces have none, and then nothing more is read.
    const statuses = new Map<number, string>()
    view.scanAt(view.failures, (event, index) => {
      if (!isAgentCall(event) || failureReportsOverflow(event) || turnLimitTextOf(event) !== undefined) return
      const status = providerStatusOf(failureTextsOf(event))
      if (status !== undefined) statuses.set(index, status)
    })
    if (statuses.size === 0) return []
    const pending = new Map<string, Map<string, Array<number>>>()
    const firstEvents = new Map<number, TraceEvent>()
    const order: Array<{ agent: string; status: string }> = []
    const called = new Set<string>()
    view.scan((event, index) => {
      if (event.kind === "tool_call" && event.tool !== undefined) called.add(event.tool)
      if (!isAgentCall(event)) return
      if (!view.failed(index)) {
        // the agent produced something after its failure: the retry worked
        if (event.status === "ok" || hasText(event) || event.kind === "tool_call") pending.delete(event.actor)
        return
      }
      const status = statuses.get(index)
      // naming a tool is the dearest to read, and read last
      if (status === undefined || failureTextsOf(event).some((text) => namesTool(text, called))) return
      const byStatus = pending.get(event.actor) ?? new Map<string, Array<number>>()
      pending.set(event.actor, byStatus)
      const same = byStatus.get(status)
      if (same === undefined) {
        byStatus.set(status, [index])
        firstEvents.set(index, event)
        order.push({ agent: event.actor, status })
      } else same.push(index)
    })
    const findings: Array<RawFinding> = []
    for (const { agent, status } of order) {
      const indices = pending.get(agent)?.get(status)
      const [first, ...rest] = indices ?? []
      if (first === undefined) continue
      pending.get(agent)?.delete(status)
      const event = firstEvents.get(first)
      const text = event === undefined ? "" : errorTextOf(event)
      const cites: Array<Cited> = [first, ...rest.slice(0, 5)].map((index) => ({ event: index }))
      findings.push({
        cites,
        explanation: `${agent}'s model call ${whatOf(status)} (${status}) at events[${first}]${text.length > 0 ? `: "${firstWordsOf(text, 100)}"` : ""}${rest.length > 0 ? `, ${rest.length + 1} times` : ""}, and no call of ${agent} succeeded after it.`,
        errorClass: status,
        agent
      })
    }
    return findings
  }
}
