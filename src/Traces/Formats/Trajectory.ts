/**
 * Coding-agent trajectories (DECISIONS §12, format `trajectory`):
 *  - SWE-agent `.traj`: `{trajectory: [{action, observation, response, thought, ...}], history,
 *    info: {exit_status, submission, model_stats}, replay_config?}`. Each step is a thought, a
 *    tool call (the action) and a tool result (the observation); `trajectory` is read, not the
 *    `history` that repeats it (only its opening system and user messages are).
 *  - mini-SWE-agent: `{messages: [{role, content}], info: {exit_status, submission},
 *    trajectory_format?}` (or the bare message list when it carries mini-SWE-agent's
 *    `mswea_bash_command` blocks): an assistant message is a thought plus a bash code block (or
 *    native `tool_calls`); the user messages after the task are observations.
 *  - OpenHands event streams: a list of `{id, timestamp, source, action | observation, message,
 *    args | extras, cause, ...}` (also the older flat events and `[action, observation]` pairs),
 *    and OpenHands evaluation outputs as JSON Lines (`{instance_id, instruction?, history,
 *    error?, ...}`, one trace per record).
 *
 * A submission is not a verdict: success is false only when the run says it failed (an exit
 * status such as `exit_error` / `exit_cost` / `LimitsExceeded`, an OpenHands `error`, the agent
 * state `error`), otherwise unknown. Evaluation fields (`test_result`, `resolved`, `report`,
 * the resolver's `success`, `instance` with its gold patch, ...) are never read; they are counted
 * as skipped.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { compactJson, contentTextOf, detectSafely, idOf, jsonText, nonEmpty, sample, type Rec } from "./Common.js"

/** Record fields that are evaluation results or dataset labels: never read, counted as skipped. */
const LABEL_FIELDS = [
  "test_result",
  "resolved",
  "report",
  "success",
  "comment_success",
  "result_explanation",
  "instance",
  "eval_result",
  "mistake_step",
  "mistake_agent",
  "mistake_reason",
  "ground_truth",
  "is_correct",
  "score",
  "scores",
  "label",
  "labels",
  "annotation",
  "annotations",
  "reward"
]

/** A string; the text parts of a list of parts; other values as JSON. */
const textOf = (content: unknown): string | undefined => contentTextOf(content, { textParts: "any", emptyList: "json" })

/** An exit status that says the run failed or was cut off (`submitted` alone says neither). */
const FAILED_STATUS = /exit_|error|exceed|limit|timeout|timed out|fail|abort|interrupt|cancel/i
const statusFailed = (status: string): boolean => status.trim().toLowerCase() !== "submitted" && FAILED_STATUS.test(status)

const countLabels = (record: Rec, builder: TraceBuilder) => {
  for (const field of LABEL_FIELDS) if (field in record) builder.skip()
}

/** Exit status and submission: the outcome, and success false when the status says failure. */
const applyInfo = (info: unknown, builder: TraceBuilder, actor: string) => {
  if (!Predicate.isRecord(info)) return
  const status = nonEmpty(stringField(info, "exit_status"))
  const submission = nonEmpty(stringField(info, "submission"))
  if (status !== undefined && statusFailed(status)) {
    builder.add({ actor, role: "agent", kind: "error", content: status, source: "info.exit_status" })
    builder.setSuccess(false)
  }
  if (submission !== undefined) builder.setOutcome(submission)
  else if (status !== undefined) builder.setOutcome(status)
}

// ---------------------------------------------------------------------------------------------
// SWE-agent .traj

const SWE_AGENT = "swe-agent"

/** The command's name: `find_file missing.py` → `find_file`. */
const commandName = (action: string): string => {
  const first = action.trim().split(/\s+/)[0] ?? ""
  return first.length > 0 && first.length <= 64 ? first : "bash"
}

/** The opening system and user messages of a history (before the first assistant turn). */
const readPreamble = (history: ReadonlyArray<unknown>, prefix: string, builder: TraceBuilder): number => {
  let i = 0
  for (; i < history.length; i++) {
    const message = history[i]
    if (!Predicate.isRecord(message)) {
      builder.skip()
      continue
    }
    const role = stringField(message, "role")
    if (role === "assistant") break
    if (message["is_demo"] === true) {
      builder.skip()
      continue
    }
    const content = textOf(message["content"])
    if (content === undefined || (role !== "system" && role !== "user")) {
      builder.skip()
      continue
    }
    builder.add({ actor: role, role, kind: "message", content, source: `${prefix}[${i}]` })
  }
  return i
}

/** A JSON string parsed, or the value as it is (SWE-agent writes `replay_config` as a JSON string). */
const parsedJson = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  try {
    const parsed: unknown = JSON.parse(value)
    return parsed
  } catch {
    return undefined
  }
}

/** The id a SWE-agent file carries: `instance_id`, else the problem statement's id in `replay_config`. */
const sweAgentId = (body: Rec): string | null => {
  const direct = idOf(body["instance_id"])
  if (direct !== undefined) return direct
  const replay = parsedJson(body["replay_config"])
  const problem = Predicate.isRecord(replay) ? replay["problem_statement"] : undefined
  return (Predicate.isRecord(problem) ? idOf(problem["id"]) : undefined) ?? null
}

const readSweAgent = (body: Rec): NormalizedTrace | string => {
  const builder = makeTraceBuilder(sweAgentId(body))
  const history = Array.isArray(body["history"]) ? body["history"] : []
  const trajectory = body["trajectory"]
  if (Array.isArray(trajectory) && trajectory.length > 0) {
    readPreamble(history, "history", builder)
    trajectory.forEach((step: unknown, i) => {
      if (!Predicate.isRecord(step)) {
        builder.skip()
        return
      }
      const source = `trajectory[${i}]`
      const thought = nonEmpty(stringField(step, "thought")) ?? nonEmpty(stringField(step, "response"))
      const action = nonEmpty(stringField(step, "action"))
      const observation = stringField(step, "observation")
      if (thought === undefined && action === undefined && nonEmpty(observation) === undefined) {
        builder.skip()
        return
      }
      if (thought !== undefined) builder.add({ actor: SWE_AGENT, role: "agent", kind: "thought", content: thought, source })
      const tool = action === undefined ? undefined : commandName(action)
      if (action !== undefined) builder.add({ actor: SWE_AGENT, role: "agent", kind: "tool_call", content: action, tool, source })
      if (observation !== undefined && (action !== undefined || observation.trim().length > 0)) {
        builder.add({ actor: tool ?? "environment", role: "tool", kind: "tool_result", content: observation, tool, source })
      }
    })
  } else {
    // No trajectory (older files): the history, read as a message list.
    readMessages(history, "history", builder, SWE_AGENT)
  }
  const firstUser = history.find((message) => Predicate.isRecord(message) && message["role"] === "user" && message["is_demo"] !== true)
  const task = Predicate.isRecord(firstUser) ? nonEmpty(textOf(firstUser["content"])) : undefined
  if (task !== undefined) builder.setTask(task)
  applyInfo(body["info"], builder, SWE_AGENT)
  countLabels(body, builder)
  return builder.eventCount() > 0 ? builder.build() : "trajectory: the SWE-agent trajectory and history hold no steps"
}

// ---------------------------------------------------------------------------------------------
// mini-SWE-agent messages (also SWE-agent histories without a trajectory)

const MINI = "mini-swe-agent"
const CODE_BLOCK = /```[\w-]*[^\S\n]*\n([\s\S]*?)\n?```/

const readMessages = (messages: ReadonlyArray<unknown>, prefix: string, builder: TraceBuilder, actor: string) => {
  const toolNames = new Map<string, string>()
  let taskSeen = false
  messages.forEach((message: unknown, i) => {
    const source = `${prefix}[${i}]`
    if (!Predicate.isRecord(message) || message["is_demo"] === true) {
      builder.skip()
      return
    }
    const role = stringField(message, "role")
    const content = textOf(message["content"]) ?? ""
    switch (role) {
      case "system":
        builder.add({ actor: "system", role: "system", kind: "message", content, source })
        return
      case "user":
        if (!taskSeen) {
          taskSeen = true
          builder.add({ actor: "user", role: "user", kind: "message", content, source })
        } else builder.add({ actor: "bash", role: "tool", kind: "tool_result", content, tool: "bash", source })
        return
      case "tool": {
        const callIds = Array.isArray(message["tool_call_ids"]) ? message["tool_call_ids"] : [message["tool_call_id"]]
        const callId = idOf(callIds[0])
        const tool = (callId === undefined ? undefined : toolNames.get(callId)) ?? "bash"
        builder.add({ actor: tool, role: "tool", kind: "tool_result", content, tool, source, call_id: callId })
        return
      }
      case "assistant": {
        const calls = Array.isArray(message["tool_calls"]) ? message["tool_calls"] : []
        const thoughtField = nonEmpty(stringField(message, "thought"))
        const actionField = nonEmpty(stringField(message, "action"))
        if (calls.length > 0) {
          const thought = thoughtField ?? nonEmpty(content)
          if (thought !== undefined) builder.add({ actor, role: "agent", kind: "thought", content: thought, source })
          for (const raw of calls) {
            const fn = Predicate.isRecord(raw) && Predicate.isRecord(raw["function"]) ? raw["function"] : undefined
            const name = fn === undefined ? undefined : stringField(fn, "name")
            if (fn === undefined || name === undefined) continue
            const id = Predicate.isRecord(raw) ? idOf(raw["id"]) : undefined
            if (id !== undefined) toolNames.set(id, name)
            const args = fn["arguments"]
            builder.add({ actor, role: "agent", kind: "tool_call", content: actionField ?? jsonText(args), tool: name, source, call_id: id })
          }
          return
        }
        if (actionField !== undefined) {
          if (thoughtField !== undefined) builder.add({ actor, role: "agent", kind: "thought", content: thoughtField, source })
          builder.add({ actor, role: "agent", kind: "tool_call", content: actionField, tool: commandName(actionField), source })
          return
        }
        const block = CODE_BLOCK.exec(content)
        if (block === null || block[1] === undefined) {
          builder.add({ actor, role: "agent", kind: "message", content, source })
          return
        }
        const thought = nonEmpty(content.slice(0, block.index).trim())
        if (thought !== undefined) builder.add({ actor, role: "agent", kind: "thought", content: thought, source })
        builder.add({ actor, role: "agent", kind: "tool_call", content: block[1], tool: "bash", source })
        return
      }
      default:
        builder.skip()
    }
  })
}

const readMini = (messages: ReadonlyArray<unknown>, prefix: string, body: Rec): NormalizedTrace | string => {
  const builder = makeTraceBuilder(idOf(body["instance_id"]) ?? null)
  readMessages(messages, prefix, builder, MINI)
  applyInfo(body["info"], builder, MINI)
  countLabels(body, builder)
  return builder.eventCount() > 0 ? builder.build() : "trajectory: the mini-SWE-agent trajectory holds no messages"
}

// ---------------------------------------------------------------------------------------------
// OpenHands events

/** Class names as some exports write them, to the serialized `action` / `observation` names. */
const OPENHANDS_NAMES: Readonly<Record<string, string>> = {
  MessageAction: "message",
  SystemMessageAction: "system",
  CmdRunAction: "run",
  IPythonRunCellAction: "run_ipython",
  FileEditAction: "edit",
  FileReadAction: "read",
  FileWriteAction: "write",
  BrowseURLAction: "browse",
  BrowseInteractiveAction: "browse_interactive",
  MCPAction: "call_tool_mcp",
  AgentFinishAction: "finish",
  AgentRejectAction: "reject",
  AgentDelegateAction: "delegate",
  AgentThinkAction: "think",
  RecallAction: "recall",
  ChangeAgentStateAction: "change_agent_state",
  NullAction: "null",
  CondensationAction: "condensation",
  CmdOutputObservation: "run",
  IPythonRunCellObservation: "run_ipython",
  FileEditObservation: "edit",
  FileReadObservation: "read",
  FileWriteObservation: "write",
  BrowserOutputObservation: "browse",
  ErrorObservation: "error",
  AgentStateChangedObservation: "agent_state_changed",
  AgentDelegateObservation: "delegate",
  AgentThinkObservation: "think",
  RecallObservation: "recall",
  NullObservation: "null",
  UserRejectObservation: "user_rejected",
  MCPObservation: "mcp"
}
const eventName = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? (OPENHANDS_NAMES[value] ?? value) : undefined)

/** Actions and observations that are bookkeeping, not trace content. */
const SILENT_ACTIONS: ReadonlySet<string> = new Set(["recall", "change_agent_state", "null", "condensation", "condensation_request", "pause", "resume"])
const SILENT_OBSERVATIONS: ReadonlySet<string> = new Set(["recall", "null", "think", "condensation"])
/** Argument fields that are flags and bookkeeping rather than what the tool was asked to do. */
const NOISE_ARGS: ReadonlySet<string> = new Set([
  "thought",
  "impl_source",
  "translated_ipython_code",
  "confirmation_state",
  "security_risk",
  "is_input",
  "blocking",
  "hidden",
  "keep_prompt",
  "is_confirmed",
  "action_risk",
  "kernel_init_code",
  "include_extra",
  "wait_for_response",
  "image_urls",
  "images_urls",
  "timeout",
  "action",
  "source",
  "id",
  "timestamp",
  "message",
  "cause",
  "tool_call_metadata",
  "llm_metrics"
])
const PRIMARY_ARG: Readonly<Record<string, string>> = { run: "command", run_ipython: "code", browse: "url", browse_interactive: "browser_actions" }

const toolArguments = (action: string, args: Rec): string => {
  const primaryField = PRIMARY_ARG[action]
  const primary = primaryField === undefined ? undefined : stringField(args, primaryField)
  if (primary !== undefined) return primary
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(args)) if (!NOISE_ARGS.has(key) && value !== null && value !== undefined && value !== "") kept[key] = value
  return compactJson(kept)
}

/** Edit and write arguments that hold the text written. */
const WRITTEN_TEXT = ["file_text", "new_str", "content", "code"] as const

/**
 * The arguments the model sent for an event's tool call, as it sent them: the call of
 * `tool_call_metadata.model_response` whose id is `tool_call_metadata.tool_call_id`.
 */
const modelCallArguments = (event: Rec): string | undefined => {
  const metadata = event["tool_call_metadata"]
  if (!Predicate.isRecord(metadata)) return undefined
  const id = idOf(metadata["tool_call_id"])
  const response = metadata["model_response"]
  const choices = Predicate.isRecord(response) && Array.isArray(response["choices"]) ? response["choices"] : []
  for (const choice of choices) {
    const message = Predicate.isRecord(choice) ? choice["message"] : undefined
    const calls = Predicate.isRecord(message) && Array.isArray(message["tool_calls"]) ? message["tool_calls"] : []
    for (const call of calls) {
      if (!Predicate.isRecord(call) || (id !== undefined && idOf(call["id"]) !== id)) continue
      const fn = call["function"]
      const args = Predicate.isRecord(fn) ? fn["arguments"] : undefined
      if (args !== undefined && args !== null) return jsonText(args)
    }
  }
  return undefined
}

/**
 * A tool call's content: its arguments (`toolArguments`). An `edit` / `write` whose arguments
 * lack the text written (OpenHands' ACI edits keep it only in the model's call and in
 * `translated_ipython_code`) takes the model's call arguments, else that code.
 */
const callArguments = (action: string, args: Rec, event: Rec): string => {
  const kept = toolArguments(action, args)
  if (action !== "edit" && action !== "write") return kept
  if (WRITTEN_TEXT.some((field) => nonEmpty(stringField(args, field)) !== undefined)) return kept
  return modelCallArguments(event) ?? nonEmpty(stringField(args, "translated_ipython_code")) ?? kept
}

const exitCodeOf = (event: Rec): number | undefined => {
  const extras = Predicate.isRecord(event["extras"]) ? event["extras"] : {}
  const metadata = Predicate.isRecord(extras["metadata"]) ? extras["metadata"] : {}
  const code = metadata["exit_code"] ?? extras["exit_code"] ?? event["exit_code"]
  return typeof code === "number" && Number.isFinite(code) ? code : undefined
}

/** Reads an event list into the builder; returns whether the agent state went to `error`. */
const readEvents = (events: ReadonlyArray<unknown>, prefix: string, builder: TraceBuilder, agent: string): boolean => {
  // Old histories hold [action, observation] pairs.
  const flat: Array<readonly [unknown, string]> = []
  events.forEach((event: unknown, i) => {
    if (Array.isArray(event) && event.length > 0 && event.length <= 2 && event.some(Predicate.isRecord)) event.forEach((inner: unknown, j) => flat.push([inner, `${prefix}[${i}][${j}]`]))
    else flat.push([event, `${prefix}[${i}]`])
  })
  const toolByEvent = new Map<string, string>()
  const callByEvent = new Map<string, string>()
  let messageSeen = false
  let errored = false
  for (const [event, position] of flat) {
    if (!Predicate.isRecord(event)) {
      builder.skip()
      continue
    }
    const id = idOf(event["id"])
    const source = id === undefined ? position : `event:${id}`
    const timestamp = nonEmpty(stringField(event, "timestamp"))
    const origin = stringField(event, "source")
    const args = Predicate.isRecord(event["args"]) ? event["args"] : event
    const action = eventName(event["action"])
    const observation = eventName(event["observation"])
    const message = nonEmpty(stringField(event, "message"))
    const base = { source, timestamp }

    if (action !== undefined) {
      if (SILENT_ACTIONS.has(action)) {
        builder.skip()
        continue
      }
      const thought = nonEmpty(stringField(args, "thought"))
      switch (action) {
        case "message": {
          const content = nonEmpty(stringField(args, "content")) ?? message
          if (content === undefined) {
            builder.skip()
            break
          }
          const fromUser = origin === undefined ? !messageSeen : origin === "user"
          messageSeen = true
          if (fromUser) builder.add({ source: base.source, timestamp: base.timestamp, actor: "user", role: "user", kind: "message", content })
          else if (origin === "environment") builder.skip()
          else builder.add({ source: base.source, timestamp: base.timestamp, actor: agent, role: "agent", kind: "message", content })
          break
        }
        case "system": {
          const content = nonEmpty(stringField(args, "content")) ?? message
          if (content === undefined) builder.skip()
          else builder.add({ source: base.source, timestamp: base.timestamp, actor: "system", role: "system", kind: "message", content })
          break
        }
        case "think": {
          const content = thought ?? message
          if (content === undefined) builder.skip()
          else builder.add({ source: base.source, timestamp: base.timestamp, actor: agent, role: "agent", kind: "thought", content })
          break
        }
        case "finish":
        case "reject": {
          const content = nonEmpty(stringField(args, "final_thought")) ?? thought ?? message ?? nonEmpty(stringField(args, "reason"))
          if (content === undefined) {
            builder.skip()
            break
          }
          builder.add({ source: base.source, timestamp: base.timestamp, actor: agent, role: "agent", kind: "message", content })
          builder.setOutcome(content)
          break
        }
        case "delegate": {
          const inputs = args["inputs"]
          const content = (Predicate.isRecord(inputs) ? nonEmpty(stringField(inputs, "task")) : undefined) ?? thought ?? message ?? compactJson(inputs ?? {})
          builder.add({ source: base.source, timestamp: base.timestamp, actor: agent, role: "agent", kind: "handoff", content, to: nonEmpty(stringField(args, "agent")) })
          break
        }
        default: {
          if (thought !== undefined) builder.add({ source: base.source, timestamp: base.timestamp, actor: agent, role: "agent", kind: "thought", content: thought })
          const fromUser = origin === "user"
          // the model's call id when the event keeps it, else the event's own (its observation's `cause`)
          const metadata = event["tool_call_metadata"]
          const callId = (Predicate.isRecord(metadata) ? idOf(metadata["tool_call_id"]) : undefined) ?? id
          builder.add({ source: base.source, timestamp: base.timestamp, actor: fromUser ? "user" : agent, role: fromUser ? "user" : "agent", kind: "tool_call", content: callArguments(action, args, event), tool: action, call_id: callId })
          if (id !== undefined) {
            toolByEvent.set(id, action)
            if (callId !== undefined) callByEvent.set(id, callId)
          }
        }
      }
      continue
    }

    if (observation !== undefined) {
      const extras = Predicate.isRecord(event["extras"]) ? event["extras"] : {}
      const cause = idOf(event["cause"])
      const tool = (cause === undefined ? undefined : toolByEvent.get(cause)) ?? observation
      const content = nonEmpty(textOf(event["content"])) ?? message ?? ""
      if (observation === "agent_state_changed") {
        if (stringField(extras, "agent_state") === "error") {
          errored = true
          const reason = nonEmpty(stringField(extras, "reason")) ?? message ?? "agent_state_changed: error"
          builder.add({ source: base.source, timestamp: base.timestamp, actor: agent, role: "agent", kind: "error", content: reason })
        } else builder.skip()
        continue
      }
      if (SILENT_OBSERVATIONS.has(observation)) {
        builder.skip()
        continue
      }
      const call_id = cause === undefined ? undefined : callByEvent.get(cause)
      if (observation === "error") {
        const caused = cause === undefined ? undefined : toolByEvent.get(cause)
        builder.add({ source: base.source, timestamp: base.timestamp, actor: caused ?? "environment", role: "tool", kind: "error", content, tool: caused, call_id, status: "error" })
        continue
      }
      const exit = exitCodeOf(event)
      const failed = exit !== undefined && exit !== 0
      builder.add({
        source: base.source,
        timestamp: base.timestamp,
        actor: tool,
        role: "tool",
        kind: failed ? "error" : "tool_result",
        content,
        tool,
        call_id,
        status: exit === undefined ? undefined : failed ? "error" : "ok",
        status_code: failed ? `exit ${exit}` : undefined
      })
      continue
    }
    builder.skip()
  }
  return errored
}

const OPENHANDS = "openhands"

/** A record's `error`, unless Python wrote "None". */
const recordError = (record: Rec): string | undefined => {
  const error = nonEmpty(textOf(record["error"]))
  return error === undefined || error === "None" || error === "null" ? undefined : error
}

/** An OpenHands record's id: `instance_id`, else its resolver issue (`owner/repo#number`, or the number). */
const openHandsId = (record: Rec): string | null => {
  const direct = idOf(record["instance_id"])
  if (direct !== undefined) return direct
  const issue = record["issue"]
  if (!Predicate.isRecord(issue)) return null
  const number = idOf(issue["number"])
  if (number === undefined) return null
  const owner = nonEmpty(stringField(issue, "owner"))
  const repo = nonEmpty(stringField(issue, "repo"))
  return owner !== undefined && repo !== undefined ? `${owner}/${repo}#${number}` : number
}

const readOpenHandsRecord = (record: Rec, prefix: string): NormalizedTrace | string => {
  const builder = makeTraceBuilder(openHandsId(record))
  const metadata = Predicate.isRecord(record["metadata"]) ? record["metadata"] : {}
  const agent = nonEmpty(stringField(metadata, "agent_class")) ?? OPENHANDS
  const history = Array.isArray(record["history"]) ? record["history"] : []
  const errored = readEvents(history, `${prefix}history`, builder, agent)
  const instruction = nonEmpty(stringField(record, "instruction"))
  if (instruction !== undefined) builder.setTask(instruction)
  const error = recordError(record)
  if (error !== undefined) {
    builder.add({ actor: agent, role: "agent", kind: "error", content: error, source: `${prefix}error` })
    builder.setOutcome(error)
  }
  if (error !== undefined || errored) builder.setSuccess(false)
  countLabels(record, builder)
  return builder.eventCount() > 0 ? builder.build() : `trajectory: the OpenHands record ${idOf(record["instance_id"]) ?? prefix} has an empty history`
}

const readOpenHandsEvents = (events: ReadonlyArray<unknown>): NormalizedTrace | string => {
  const builder = makeTraceBuilder(null)
  if (readEvents(events, "", builder, OPENHANDS)) builder.setSuccess(false)
  return builder.eventCount() > 0 ? builder.build() : "trajectory: the OpenHands event list holds no actions or observations"
}

// ---------------------------------------------------------------------------------------------
// Shapes

const looksLikeOpenHandsEvent = (value: unknown): boolean => {
  const event = Array.isArray(value) ? value.find(Predicate.isRecord) : value
  if (!Predicate.isRecord(event)) return false
  const named = typeof event["action"] === "string" || typeof event["observation"] === "string"
  if (!named) return false
  const origin = event["source"]
  return (
    origin === "user" ||
    origin === "agent" ||
    origin === "environment" ||
    Predicate.isRecord(event["args"]) ||
    Predicate.isRecord(event["extras"]) ||
    "message" in event ||
    "thought" in event ||
    "command" in event ||
    "content" in event ||
    "outputs" in event
  )
}
const looksLikeOpenHandsEvents = (list: ReadonlyArray<unknown>): boolean => sample(list).some(looksLikeOpenHandsEvent)

const looksLikeOpenHandsRecord = (value: unknown): boolean => {
  if (!Predicate.isRecord(value)) return false
  const history = value["history"]
  if (!Array.isArray(history) || "trajectory" in value) return false
  const marked = "instance_id" in value || "instruction" in value || "test_result" in value || "git_patch" in value || "metrics" in value
  return history.length === 0 ? marked : looksLikeOpenHandsEvents(history)
}

const looksLikeSweAgent = (body: Rec): boolean => {
  const trajectory = body["trajectory"]
  if (Array.isArray(trajectory)) {
    if (trajectory.length === 0) return Predicate.isRecord(body["info"]) || Array.isArray(body["history"])
    return sample(trajectory).some((step) => Predicate.isRecord(step) && ("action" in step || "observation" in step || "thought" in step || "response" in step))
  }
  const info = body["info"]
  if (Array.isArray(body["history"]) && Predicate.isRecord(info) && "exit_status" in info && !Array.isArray(body["messages"])) return true
  return looksLikeSweAgentHistory(body)
}

/**
 * A history-only `.traj` (SWE-agent's demonstrations: `{history, replay_config?}` without
 * `trajectory`): chat messages with SWE-agent's own `agent` / `message_type` fields.
 */
const looksLikeSweAgentHistory = (body: Rec): boolean => {
  const history = body["history"]
  if (!Array.isArray(history) || Array.isArray(body["messages"]) || "trajectory" in body) return false
  const head = sample(history)
  return head.some((message) =>
    Predicate.isRecord(message) &&
    typeof message["role"] === "string" &&
    (typeof message["message_type"] === "string" || (typeof message["agent"] === "string" && "content" in message))
  ) && !head.some((event) => Predicate.isRecord(event) && (typeof event["observation"] === "string" || Predicate.isRecord(event["args"])))
}

const looksLikeMini = (body: Rec): boolean => {
  const messages = body["messages"]
  if (!Array.isArray(messages)) return false
  const format = stringField(body, "trajectory_format")
  if (format !== undefined && format.startsWith("mini-swe-agent")) return true
  const info = body["info"]
  return Predicate.isRecord(info) && ("exit_status" in info || "submission" in info || "mini_version" in info)
}

/** A bare message list is mini-SWE-agent's only when it carries its `mswea_bash_command` blocks. */
const looksLikeMiniList = (list: ReadonlyArray<unknown>): boolean =>
  sample(list).some((message) => Predicate.isRecord(message) && message["role"] === "assistant" && typeof message["content"] === "string" && message["content"].includes("```mswea_bash_command"))

const detect = (body: unknown): boolean => {
  if (Array.isArray(body)) {
    const head = sample(body)
    return head.some(looksLikeOpenHandsRecord) || looksLikeOpenHandsEvents(head) || looksLikeMiniList(head)
  }
  if (!Predicate.isRecord(body)) return false
  return looksLikeSweAgent(body) || looksLikeMini(body) || looksLikeOpenHandsRecord(body)
}

const collectTraces = (results: ReadonlyArray<NormalizedTrace | string>): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const traces = results.filter((result): result is NormalizedTrace => typeof result !== "string")
  if (traces.length > 0) return Either.right(traces)
  return Either.left(results.find((result): result is string => typeof result === "string") ?? "trajectory: the body holds no records")
}

const read = (body: unknown): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  if (Array.isArray(body)) {
    if (body.length === 0) return Either.left("trajectory: the body is an empty list")
    if (sample(body).some(looksLikeOpenHandsRecord)) {
      // OpenHands outputs (JSON Lines): one trace per record.
      const results = body.map((record: unknown, k) => (looksLikeOpenHandsRecord(record) && Predicate.isRecord(record) ? readOpenHandsRecord(record, `[${k}].`) : `trajectory: record [${k}] is not an OpenHands output record`))
      const skipped = results.filter((result) => typeof result === "string").length
      const traces = collectTraces(results)
      if (skipped === 0 || Either.isLeft(traces)) return traces
      // Records that are not output records count against the first trace.
      return Either.map(traces, (list) => list.map((trace, i) => (i === 0 ? { ...trace, skipped: trace.skipped + skipped } : trace)))
    }
    if (looksLikeOpenHandsEvents(body)) return collectTraces([readOpenHandsEvents(body)])
    return collectTraces([readMini(body, "", {})])
  }
  if (!Predicate.isRecord(body)) return Either.left("trajectory: expected a SWE-agent .traj, a mini-SWE-agent trajectory, an OpenHands event list or OpenHands output records")
  if (looksLikeSweAgent(body)) return collectTraces([readSweAgent(body)])
  const messages = body["messages"]
  if (Array.isArray(messages)) return collectTraces([readMini(messages, "messages", body)])
  if (Array.isArray(body["history"])) return collectTraces([readOpenHandsRecord(body, "")])
  return Either.left("trajectory: expected `trajectory` (SWE-agent), `messages` with `info` (mini-SWE-agent) or `history` (OpenHands)")
}

export const trajectoryImporter: Importer = {
  format: "trajectory",
  detect: detectSafely(detect),
  read
}
