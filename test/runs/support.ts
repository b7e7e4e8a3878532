/**
 * What the runs API's end-to-end tests share: small traces (a chat conversation, and OpenAI Agents
 * SDK spans, one trace per trace id, for bodies of several traces), HTTP calls to the real service
 * with an optional API key, the contract's schemas to decode the answers, polling a run to its end
 * (50 ms steps, within a deadline), and a provider-double script whose findings cite chosen events.
 */
import { expect } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { definitions } from "../../patterns/index.js"
import { type Run, RunList, RunWithReport, SubmitRunsResponse } from "../../src/Contract/RunsContract.js"
import { exampleOutput, type RecordedCall, type Reply } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

/** A new SVC_HOME: each service keeps its own runs store. */
export const freshHome = (label: string): string => mkdtempSync(join(tmpdir(), `svc-runs-${label}-`))

/** A run's id: `run_` and 128 random bits in base64url (22 characters). */
export const RUN_ID = /^run_[A-Za-z0-9_-]{22}$/

export interface ChatMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/** A five-message chat trace (OpenAI Chat Completions shape) whose texts carry `marker`: another marker, another trace. */
export const chatTrace = (marker: string): { readonly messages: ReadonlyArray<ChatMessage> } => ({
  messages: [
    { role: "system", content: `You are a careful travel assistant (desk ${marker}) who books exactly what the user asks.` },
    { role: "user", content: `Please book me a flight to Paris for tomorrow morning, economy class, reference ${marker}.` },
    { role: "assistant", content: `I booked a business class flight to Rome for next week instead, reference ${marker}.` },
    { role: "user", content: `That is wrong, I asked for Paris tomorrow in economy class (reference ${marker}).` },
    { role: "assistant", content: `Sorry, I cannot change the booking now; the task ${marker} is complete.` }
  ]
})

/** One OpenAI Agents SDK trace as its exporter's objects: a trace, an agent span and `tools` function spans. */
export const agentsTrace = (n: number, tools = 1): ReadonlyArray<Record<string, unknown>> => {
  const traceId = `trace_${String(n).padStart(32, "0")}`
  const agent = `span_${n}_agent`
  return [
    { object: "trace", id: traceId, workflow_name: `support desk ${n}`, metadata: {} },
    {
      object: "trace.span",
      id: agent,
      trace_id: traceId,
      parent_id: null,
      started_at: "2026-01-01T00:00:00.000Z",
      ended_at: "2026-01-01T00:00:09.000Z",
      span_data: { type: "agent", name: "Billing agent" },
      error: null
    },
    ...Array.from({ length: tools }, (_, i) => ({
      object: "trace.span",
      id: `span_${n}_tool_${i}`,
      trace_id: traceId,
      parent_id: agent,
      started_at: `2026-01-01T00:00:0${Math.min(i, 8)}.100Z`,
      ended_at: `2026-01-01T00:00:0${Math.min(i, 8)}.200Z`,
      span_data: {
        type: "function",
        name: "lookup_invoice",
        input: JSON.stringify({ invoice_id: `INV-${n}-${i}` }),
        output: `Invoice INV-${n}-${i} was not found in the billing system of desk ${n}.`
      },
      error: null
    }))
  ]
}

/** The trace id `agentsTrace(n)` carries. */
export const agentsTraceId = (n: number): string => `trace_${String(n).padStart(32, "0")}`

/** Objects as a JSON Lines body. */
export const jsonLines = (records: ReadonlyArray<unknown>): string => records.map((record) => JSON.stringify(record)).join("\n")

export interface CallOptions {
  /** The API key, sent as a bearer token. */
  readonly key?: string
  /** A JSON value (sent as JSON), or a text sent as it is. */
  readonly body?: unknown
  readonly contentType?: string
}

/** One request to the service. */
export const call = (service: RunningService, method: string, path: string, options: CallOptions = {}): Promise<Response> => {
  const headers: Record<string, string> = {}
  if (options.key !== undefined) headers["authorization"] = `Bearer ${options.key}`
  if (options.body !== undefined) headers["content-type"] = options.contentType ?? "application/json"
  return fetch(`${service.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) })
  })
}

export const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })

/** The body of an answer, decoded by `schema` after its status was checked (the body is in the failure's message). */
export const decoded = async <A, I>(response: Response, status: number, schema: Schema.Schema<A, I>): Promise<A> => {
  const text = await response.text()
  expect(response.status, text.slice(0, 600)).toBe(status)
  return Schema.decodeUnknownSync(schema)(JSON.parse(text))
}

/** The error kind of a refusal with the given status, checked to be the `{detail:{error,message}}` body. */
export const refusal = async (response: Response, status: number): Promise<string> => (await decoded(response, status, ErrorBody)).detail.error

/** Submits a body (202 expected): the runs made and the traces refused. */
export const submit = async (service: RunningService, body: unknown, options: Omit<CallOptions, "body"> & { readonly query?: string } = {}) =>
  decoded(await call(service, "POST", `/v1/runs${options.query ?? ""}`, { ...options, body }), 202, SubmitRunsResponse)

/** Submits one trace: its run's id. */
export const submitOne = async (service: RunningService, body: unknown, options: Omit<CallOptions, "body"> & { readonly query?: string } = {}) => {
  const answer = await submit(service, body, options)
  expect(answer.rejected).toEqual([])
  expect(answer.runs).toHaveLength(1)
  const run = answer.runs[0]
  if (run === undefined) throw new Error("no run was made")
  return run.id
}

export const getRun = async (service: RunningService, id: string, key?: string) =>
  decoded(await call(service, "GET", `/v1/runs/${id}`, key === undefined ? {} : { key }), 200, RunWithReport)

/** Every run a service at `url` lists (no key), page after page. */
export const allRunsAt = async (url: string): Promise<Array<Run>> => {
  const runs: Array<Run> = []
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
    const response = await fetch(`${url}/v1/runs?limit=200${query}`)
    expect(response.status).toBe(200)
    const page = Schema.decodeUnknownSync(RunList)(await response.json())
    runs.push(...page.runs)
    cursor = page.next_cursor
  } while (cursor !== null)
  return runs
}

export const listRuns = async (service: RunningService, query = "", key?: string) =>
  decoded(await call(service, "GET", `/v1/runs${query}`, key === undefined ? {} : { key }), 200, RunList)

type RunWithReport = typeof RunWithReport.Type

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const ENDED: ReadonlyArray<string> = ["done", "failed", "skipped"]

/** Polls a run every 50 ms until `until` holds (by default: it ended), within `deadlineMs`. */
export const waitForRun = async (
  service: RunningService,
  id: string,
  options: { readonly key?: string; readonly deadlineMs?: number; readonly until?: (run: RunWithReport) => boolean } = {}
): Promise<RunWithReport> => {
  const until = options.until ?? ((run: RunWithReport) => ENDED.includes(run.status))
  const deadline = Date.now() + (options.deadlineMs ?? 20_000)
  let last: RunWithReport | undefined
  while (Date.now() < deadline) {
    last = await getRun(service, id, options.key)
    if (until(last)) return last
    await sleep(50)
  }
  throw new Error(`run ${id} did not reach the expected state in time; last seen: ${JSON.stringify(last).slice(0, 400)}`)
}

/** The field each pattern family's lens cites (`messages[2]`, `steps[2]`): the projection keeps the events' order. */
const FIELD: Readonly<Record<string, string>> = { step_trace: "steps", message_log: "messages", conversation: "turns", behaviour_report: "observed_behaviors" }
const byDetectionName = new Map(definitions.map((definition) => [`${definition.spec.name}Detection`, definition]))

/**
 * Each lens answers its example detection at `severity`, its first finding quoting the beginning
 * of the chosen events' contents verbatim (so they pass the evidence check and cite those events).
 */
export const quotingEvents = (contents: ReadonlyArray<string>, picks: ReadonlyArray<number>, severity = "high") => (recorded: RecordedCall): Reply | undefined => {
  const definition = byDetectionName.get(recorded.objectName)
  if (definition === undefined) return undefined
  const field = FIELD[definition.spec.family]
  const output = exampleOutput(definition.spec.slug)
  const findings: ReadonlyArray<unknown> = Array.isArray(output["findings"]) ? output["findings"] : []
  const first = findings[0]
  return {
    kind: "object",
    value: {
      ...output,
      severity,
      findings: field === undefined || typeof first !== "object" || first === null
        ? []
        : [{ ...first, severity, evidence: picks.map((i) => ({ ref: `${field}[${i}]`, quote: (contents[i] ?? "").slice(0, 30) })) }]
    }
  }
}

/**
 * The sum of a metric's samples with these labels in a /metrics text (0 when absent).
 *
 * A sum, not the first line: the test files of a fork share Effect's metric registry (it lives on
 * `globalThis`) while each file loads the service's modules anew, and a histogram's key compares
 * its boundaries array by reference, so each file that ran a service adds a series of the same name
 * (seen: three `svc_run_queue_seconds_count` lines, the first a finished file's, in the heavy fork).
 * Earlier files' services have stopped, so their series stand still and the sum's deltas are this
 * file's. One process loads the modules once: the service itself shows one series per name.
 */
export const metricSample = (text: string, name: string, labels: Readonly<Record<string, string>> = {}): number =>
  text
    .split("\n")
    .filter((candidate) =>
      (candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `)) && Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`))
    )
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0)
