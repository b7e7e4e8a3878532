/**
 * The `tau_bench` importer (DECISIONS §12): tau-bench and tau2-bench trajectories.
 *
 * - tau-bench results (`results/*.json`, `historical_trajectories/*.json`): a list of
 *   `{task_id, reward, info, traj, trial}`, or one such record cut out of it; `traj` OpenAI-style
 *   messages (`system`, `user`, `assistant` with `tool_calls: [{id, function: {name, arguments}}]`,
 *   `tool` with `tool_call_id`, `name`). One trace per record, id `task_id` (`<task_id>:<trial>`
 *   for trials after the first). A run that raised has `info.error`: an error, success = false.
 * - tau2-bench results (`data/simulations/*.json`): `{timestamp, info, tasks, simulations: [{id,
 *   task_id, trial, messages: [{role: assistant | user | tool | system, content, tool_calls: [{id,
 *   name, arguments, requestor}], turn_idx, timestamp, error}], termination_reason, reward_info}]}`,
 *   or one simulation on its own. One trace per simulation, id the simulation's `id`. A tool
 *   message (`id` = the call's id; a MultiToolMessage's `tool_messages` each) with `error: true`
 *   is an error; the user simulator's own tool calls (telecom) are the user's. A
 *   `termination_reason` other than `agent_stop` / `user_stop` (`max_steps`, `too_many_errors`,
 *   `agent_error`, `user_error`, ...) ends the trace with an error, success = false.
 *
 * Success comes from an error status only (DECISIONS §12): an error or an abnormal termination is a
 * failure; otherwise it is unknown. The benchmark's `reward` is a score, a label that never reaches
 * the model, the checks or triage (svc eval reads it apart, eval/outcomes/tau-bench.ts). Labels are
 * never read: `reward`, `reward_info`,
 * `info.task` (the task's ground-truth actions, outputs and the user simulator's instruction),
 * `info.reward_info`, tau2's `tasks` (evaluation criteria, user scenario) and reviews. The task is
 * the user's first message. Tool calls and their results carry the call's id (`call_id`), a tool
 * error `status: error`. Sources: `[0].traj[6]` (`traj[6]` for a lone record),
 * `[0].traj[6].tool_calls[0]`, `simulations[1].messages[4]`, `simulations[1].messages[5].tool_messages[0]`,
 * `simulations[1].messages[4].tool_calls[0]`, `simulations[1].termination_reason`.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { EventInput, TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { at, contentTextOf, detectSafely, idOf, jsonText, nonEmpty, readEach, sample, toolCallOf, type Rec, type Who } from "./Common.js"

// ---------------------------------------------------------------------------------------------
// Detection

/** A tau-bench result record: a task id and a `traj` list, with `reward` or `info`. */
const isTauRecord = (record: unknown): boolean =>
  Predicate.isRecord(record) && idOf(record["task_id"]) !== undefined && Array.isArray(record["traj"]) && ("reward" in record || "info" in record)

/** A tau2 simulation: a task id and messages, with a termination reason. */
const isSimulation = (record: unknown): boolean =>
  Predicate.isRecord(record) &&
  idOf(record["task_id"]) !== undefined &&
  Array.isArray(record["messages"]) &&
  typeof record["termination_reason"] === "string"

const isTau2Results = (body: Rec): boolean => {
  const simulations = body["simulations"]
  return Array.isArray(simulations) && sample(simulations).some(isSimulation)
}

const detect = (body: unknown): boolean => {
  if (Array.isArray(body)) return body.length > 0 && sample(body).every(isTauRecord)
  return Predicate.isRecord(body) && (isTau2Results(body) || isSimulation(body) || isTauRecord(body))
}

// ---------------------------------------------------------------------------------------------
// Reading

const ASSISTANT: Who = { actor: "assistant", role: "agent" }
const ROLES: Readonly<Record<string, Who>> = {
  system: { actor: "system", role: "system" },
  user: { actor: "user", role: "user" },
  assistant: ASSISTANT
}

/** Terminations that are the run ending normally (either side stopping). */
const NORMAL_ENDS: ReadonlySet<string> = new Set(["agent_stop", "user_stop"])

const textOf = (content: unknown): string => contentTextOf(content, { textParts: new Set(["text"]), emptyList: "json" }) ?? ""

interface Reader {
  readonly builder: TraceBuilder
  /** tool call id → tool name. */
  readonly tools: Map<string, string>
}

/** The events of one message (both generations: tau-bench's OpenAI messages and tau2's). */
const messageEvents = (reader: Reader, message: unknown, source: string): Array<EventInput> => {
  if (!Predicate.isRecord(message)) {
    reader.builder.skip()
    return []
  }
  const role = stringField(message, "role") ?? ""
  const timestamp = stringField(message, "timestamp")
  const grouped = message["tool_messages"]
  if (role === "tool" && Array.isArray(grouped)) {
    // tau2's MultiToolMessage: the results of parallel calls
    return grouped.flatMap((inner, index) => {
      // one level only: a group inside a group is not read
      if (Predicate.isRecord(inner) && "tool_messages" in inner) {
        reader.builder.skip()
        return []
      }
      return messageEvents(reader, inner, `${source}.tool_messages[${index}]`)
    })
  }
  if (role === "tool") {
    const callId = stringField(message, "tool_call_id") ?? stringField(message, "id")
    const name = stringField(message, "name") ?? (callId === undefined ? undefined : reader.tools.get(callId))
    const failed = message["error"] === true
    return [
      { actor: name ?? "tool", role: "tool", kind: failed ? "error" : "tool_result", content: textOf(message["content"]), tool: name, source, timestamp, call_id: callId, status: failed ? "error" : undefined }
    ]
  }
  const who = Object.hasOwn(ROLES, role) ? ROLES[role] : undefined
  if (who === undefined) {
    reader.builder.skip()
    return []
  }
  const events: Array<EventInput> = []
  const content = textOf(message["content"])
  if (content.length > 0) events.push({ actor: who.actor, role: who.role, kind: "message", content, source, timestamp })
  const calls = message["tool_calls"]
  if (Array.isArray(calls)) {
    calls.forEach((call, index) => {
      const read = toolCallOf(call, { nested: ["arguments"], flat: ["arguments"] })
      if (read === undefined) {
        reader.builder.skip()
        return
      }
      if (read.id !== undefined) reader.tools.set(read.id, read.name)
      events.push({ actor: who.actor, role: who.role, kind: "tool_call", content: read.args, tool: read.name, source: `${source}.tool_calls[${index}]`, timestamp, call_id: read.id })
    })
  }
  return events
}

/** A trace from its messages; the task is the user's first message (empty when none). */
const readMessages = (
  id: string | null,
  messages: ReadonlyArray<unknown>,
  prefix: string,
  end: (builder: TraceBuilder) => void
): NormalizedTrace | undefined => {
  const reader: Reader = { builder: makeTraceBuilder(id), tools: new Map() }
  messages.forEach((message, index) => {
    for (const event of messageEvents(reader, message, `${prefix}[${index}]`)) reader.builder.add(event)
  })
  end(reader.builder)
  const trace = reader.builder.build()
  return trace.events.length === 0 ? undefined : trace
}

/** A trial number above 0 as an id suffix. */
const withTrial = (id: string | undefined, trial: unknown): string | null =>
  id === undefined ? null : typeof trial === "number" && trial > 0 ? `${id}:${trial}` : id

const readTauRecord = (record: Rec, prefix: string): NormalizedTrace | undefined => {
  const traj = record["traj"]
  const info = record["info"]
  return readMessages(withTrial(idOf(record["task_id"]), record["trial"]), Array.isArray(traj) ? traj : [], at(prefix, "traj"), (builder) => {
    const error = Predicate.isRecord(info) ? info["error"] : undefined
    const text = typeof error === "string" ? nonEmpty(error) : error === undefined || error === null ? undefined : jsonText(error)
    if (text !== undefined) {
      builder.add({ actor: "system", role: "system", kind: "error", content: text, source: at(prefix, "info.error") })
      builder.setSuccess(false)
    }
  })
}

const readSimulation = (simulation: Rec, prefix: string): NormalizedTrace | undefined => {
  const messages = simulation["messages"]
  const id = idOf(simulation["id"]) ?? withTrial(idOf(simulation["task_id"]), simulation["trial"])
  return readMessages(id ?? null, Array.isArray(messages) ? messages : [], at(prefix, "messages"), (builder) => {
    const reason = stringField(simulation, "termination_reason")
    if (reason !== undefined && !NORMAL_ENDS.has(reason)) {
      builder.add({ actor: "system", role: "system", kind: "error", content: `termination_reason: ${reason}`, source: at(prefix, "termination_reason") })
      builder.setSuccess(false)
    }
  })
}

const fail = (message: string) => Either.left(`tau_bench: ${message}`)

/** The traces of a list of records read one by one; records that hold nothing are counted on the first. */
const collect = (records: ReadonlyArray<unknown>, read: (record: Rec, index: number) => NormalizedTrace | undefined) => {
  const { traces, unread } = readEach(records, (record, index) => (Predicate.isRecord(record) ? read(record, index) : undefined))
  return traces.length === 0 ? fail(`no record holds readable messages (${unread} records)`) : Either.right(traces)
}

export const tauBenchImporter: Importer = {
  format: "tau_bench",
  detect: detectSafely(detect),
  read: (body) => {
    if (!detect(body)) return fail("expected tau-bench results (a list of `{task_id, traj}`, or one of its records) or tau2-bench results (`{simulations}`) or one simulation")
    if (Array.isArray(body)) return collect(body, (record, index) => readTauRecord(record, `[${index}]`))
    if (!Predicate.isRecord(body)) return fail("expected an object or a list")
    if (isTauRecord(body)) {
      const record = readTauRecord(body, "")
      return record === undefined ? fail("the record holds no readable messages") : Either.right([record])
    }
    const simulations = body["simulations"]
    if (Array.isArray(simulations)) return collect(simulations, (simulation, index) => readSimulation(simulation, `simulations[${index}]`))
    const trace = readSimulation(body, "")
    return trace === undefined ? fail("the simulation holds no readable messages") : Either.right([trace])
  }
}
