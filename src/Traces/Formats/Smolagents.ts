/**
 * The `smolagents` importer (DECISIONS §12): Hugging Face smolagents runs, as two shapes.
 *
 * 1. The benchmark's answer records (`examples/smolagents_benchmark/run.py`, JSON Lines, one run
 *    per record): `{model_id, agent_action_type, question, original_question, answer, true_answer,
 *    source, intermediate_steps, start_time, end_time, token_counts}`, where `intermediate_steps`
 *    is `agent.write_memory_to_messages()` as ChatMessage dicts (`{role: system | user |
 *    assistant | tool-call | tool-response, content: [{type: "text", text}]}`), the answer itself
 *    for a `vanilla` (model-only) run, or `[]` when the run raised (the answer is then the error).
 * 2. `agent.memory` step dumps (`memory.get_full_steps()` / `get_succinct_steps()`, or
 *    `{system_prompt, steps}`): TaskStep `{task}`, PlanningStep `{plan, model_output_message}`,
 *    ActionStep `{step_number, timing, model_output, tool_calls, observations, error,
 *    action_output, is_final_answer}`, FinalAnswerStep `{output}`, SystemPromptStep.
 *
 * Memory writes each step into messages again; those copies are read once: an assistant message
 * "Tool call <id>: calling '<tool>' with arguments: …" is the tool call the next "Calling tools:"
 * message states (that one is read, its Python literal parsed: the arguments, a code string for a
 * CodeAgent); the code block of a CodeAgent's "Thought: … <code>…</code>" message is that same
 * call, so only the thought before it is kept (its stop sequence with it); "Observation:\n" is
 * taken off tool results; "Call id: …\nError:\n…" is an error without the retry advice; the
 * "New task:\n" prefix is taken off the task; a PlanningStep's plan is a thought and the "Now
 * proceed and carry out this plan." that follows it is not a user message. In step dumps, the
 * `model_input_messages` (the history again) and `model_output_message` (the output again) are
 * not read.
 *
 * The task is the record's `question` (the step dump's TaskStep), the outcome its `answer`
 * (`action_output` of the final step). `true_answer`, scores and `token_counts` are labels or
 * accounting: never read. Sources: `[3].intermediate_steps[5]` (JSON Lines), `steps[2].tool_calls[0]`.
 * Trace ids: a record's `task_id` / `question_id` when it has one, else its index in the body.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import { makeTraceBuilder, type EventInput, type TraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import type { NormalizedTrace, TokenUsage } from "../Model.js"
import { at, compactJson, countOf, detectSafely, isoOfEpoch, readEach, sample, str, type Rec } from "./Common.js"

// ---------------------------------------------------------------------------------------------
// Detection

const SMOL_ROLES: ReadonlySet<string> = new Set(["tool-call", "tool-response"])
const CHAT_ROLES: ReadonlySet<string> = new Set(["system", "user", "assistant", "tool-call", "tool-response"])

/** A ChatMessage dict as smolagents writes it: a role of its own set, content a list of text parts. */
const isChatMessage = (value: unknown): boolean =>
  Predicate.isRecord(value) && typeof value["role"] === "string" && CHAT_ROLES.has(value["role"]) && (Array.isArray(value["content"]) || typeof value["content"] === "string")

/** A benchmark record: `question` and `intermediate_steps`, and the run's own fields. */
const isBenchmarkRecord = (value: unknown): value is Rec => {
  if (!Predicate.isRecord(value) || typeof value["question"] !== "string" || !("intermediate_steps" in value)) return false
  const steps = value["intermediate_steps"]
  const stepsFit = typeof steps === "string" || (Array.isArray(steps) && sample(steps).every((step) => isChatMessage(step) || isStep(step)))
  return stepsFit && ("agent_action_type" in value || "model_id" in value || (Array.isArray(steps) && sample(steps).some(isSmolMessage)))
}
const isSmolMessage = (value: unknown): boolean => Predicate.isRecord(value) && typeof value["role"] === "string" && SMOL_ROLES.has(value["role"])

type StepKind = "action" | "planning" | "task" | "final" | "system"

/** What a memory step dict is, by its fields. */
const stepKind = (value: unknown): StepKind | undefined => {
  if (!Predicate.isRecord(value)) return undefined
  if ("step_number" in value && ("observations" in value || "model_output" in value || "tool_calls" in value)) return "action"
  if (typeof value["plan"] === "string" && ("model_output_message" in value || "timing" in value)) return "planning"
  if (typeof value["task"] === "string" && "task_images" in value) return "task"
  if (typeof value["system_prompt"] === "string" && Object.keys(value).length <= 2) return "system"
  if ("output" in value && Object.keys(value).length === 1) return "final"
  return undefined
}
const isStep = (value: unknown): boolean => stepKind(value) !== undefined

/** A list of memory steps: every step recognised, and an action or planning step among them. */
const isStepList = (value: unknown): value is ReadonlyArray<unknown> => {
  if (!Array.isArray(value) || value.length === 0) return false
  const kinds = sample(value).map(stepKind)
  return kinds.every((kind) => kind !== undefined) && kinds.some((kind) => kind === "action" || kind === "planning")
}

const stepsOf = (body: unknown): ReadonlyArray<unknown> | undefined => {
  if (isStepList(body)) return body
  if (!Predicate.isRecord(body)) return undefined
  const memory = body["memory"]
  const holder = Predicate.isRecord(memory) ? memory : body
  const steps = holder["steps"]
  return isStepList(steps) ? steps : undefined
}

const detect = (body: unknown): boolean => {
  if (isBenchmarkRecord(body) || stepsOf(body) !== undefined) return true
  return Array.isArray(body) && body.length > 0 && sample(body).every(isBenchmarkRecord)
}

// ---------------------------------------------------------------------------------------------
// Python literals ("Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {...}}]")

/** Parses a Python literal (dicts, lists, tuples, strings, numbers, True / False / None); undefined when it is not one. */
export const parsePythonLiteral = (text: string): unknown => {
  let i = 0
  const fail = Symbol("fail")
  const space = () => {
    while (i < text.length && /\s/.test(text[i] ?? "")) i++
  }
  const stringAt = (): string | typeof fail => {
    const quote = text[i]
    if (quote !== "'" && quote !== "\"") return fail
    const triple = text.startsWith(quote.repeat(3), i)
    const end = triple ? quote.repeat(3) : quote
    i += end.length
    let out = ""
    while (i < text.length) {
      if (text.startsWith(end, i)) {
        i += end.length
        return out
      }
      const char = text[i] ?? ""
      if (char === "\\") {
        const next = text[i + 1] ?? ""
        const simple: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", "\"": "\"", "0": "\0", a: "\u0007", b: "\b", f: "\f", v: "\v", "\n": "" }
        if (next in simple) {
          out += simple[next] ?? ""
          i += 2
          continue
        }
        const width = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0
        const hex = width === 0 ? "" : text.slice(i + 2, i + 2 + width)
        if (width > 0 && hex.length === width && /^[0-9a-fA-F]+$/.test(hex)) {
          out += String.fromCodePoint(Number.parseInt(hex, 16))
          i += 2 + width
          continue
        }
        out += char
        i++
        continue
      }
      if (!triple && char === "\n") return fail
      out += char
      i++
    }
    return fail
  }
  const valueAt = (depth: number): unknown => {
    if (depth > 64) return fail
    space()
    const char = text[i]
    if (char === "'" || char === "\"") return stringAt()
    if (char === "[" || char === "(") {
      const close = char === "[" ? "]" : ")"
      i++
      const list: Array<unknown> = []
      for (;;) {
        space()
        if (text[i] === close) {
          i++
          return list
        }
        const item = valueAt(depth + 1)
        if (item === fail) return fail
        list.push(item)
        space()
        if (text[i] === ",") i++
        else if (text[i] !== close) return fail
      }
    }
    if (char === "{") {
      i++
      const record: Record<string, unknown> = {}
      for (;;) {
        space()
        if (text[i] === "}") {
          i++
          return record
        }
        const key = valueAt(depth + 1)
        if (key === fail || (typeof key !== "string" && typeof key !== "number")) return fail
        space()
        if (text[i] !== ":") return fail
        i++
        const item = valueAt(depth + 1)
        if (item === fail) return fail
        if (key !== "__proto__") record[String(key)] = item
        space()
        if (text[i] === ",") i++
        else if (text[i] !== "}") return fail
      }
    }
    const word = /^(True|False|None|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 40))?.[0]
    if (word === undefined) return fail
    i += word.length
    return word === "True" ? true : word === "False" ? false : word === "None" ? null : Number(word)
  }
  const value = valueAt(0)
  space()
  return value === fail || i !== text.length ? undefined : value
}

// ---------------------------------------------------------------------------------------------
// Reading

interface Call {
  readonly id: string | undefined
  readonly name: string
  readonly args: string
}

const argsText = (value: unknown): string => (typeof value === "string" ? value : compactJson(value))

/** The calls of a `tool_calls` list (dicts `{id, type, function: {name, arguments}}`). */
const callsOf = (list: unknown): ReadonlyArray<Call> | undefined => {
  if (!Array.isArray(list)) return undefined
  const calls: Array<Call> = []
  for (const call of list) {
    if (!Predicate.isRecord(call)) return undefined
    const fn = Predicate.isRecord(call["function"]) ? call["function"] : call
    const name = str(fn["name"])
    if (name === undefined) return undefined
    calls.push({ id: str(call["id"]), name, args: argsText(fn["arguments"] ?? {}) })
  }
  return calls
}

/** The text of a ChatMessage content: a string, or its text parts joined (others counted). */
const messageText = (content: unknown, skip: () => void): string | undefined => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return undefined
  const texts: Array<string> = []
  for (const part of content) {
    if (Predicate.isRecord(part) && typeof part["text"] === "string") texts.push(part["text"])
    else skip()
  }
  return texts.join("\n")
}

const AGENT = "agent"
const TOOL_CALL_COPY = /^Tool call [^\s:]*: calling '[^']*' with arguments: /
const CODE_START = /(?:^|\n)[ \t]*(?:Code:\s*)?(?:<code>|```(?:py|python)?\s*\n)/
const PLAN_FOLLOW_UP = "Now proceed and carry out this plan."
const ERROR_AT = /^(?:Call id: [^\n]*\n)?Error:\n/
const RETRY_ADVICE = "\nNow let's retry: take care not to repeat previous errors!"

/** A CodeAgent message's thought: the text before its code block (undefined when it has none). */
const thoughtBeforeCode = (text: string): string | undefined => {
  const match = CODE_START.exec(text)
  if (match === null) return undefined
  return text.slice(0, match.index).trim()
}

/** The error of a tool response (`Call id: …\nError:\n<error>\nNow let's retry: …`), or undefined. */
const errorOf = (text: string): string | undefined => {
  const match = ERROR_AT.exec(text)
  if (match === null) return undefined
  const rest = text.slice(match[0].length)
  const advice = rest.indexOf(RETRY_ADVICE)
  return advice < 0 ? rest : rest.slice(0, advice)
}

const OBSERVATION = "Observation:\n"
const observationText = (text: string): string => (text.startsWith(OBSERVATION) ? text.slice(OBSERVATION.length) : text)

/** The events of a benchmark record's messages (`intermediate_steps`). */
const readMessages = (builder: TraceBuilder, messages: ReadonlyArray<unknown>, prefix: string): void => {
  let lastCalls: ReadonlyArray<Call> = []
  messages.forEach((raw, index) => {
    const source = `${prefix}[${index}]`
    if (!Predicate.isRecord(raw)) {
      builder.skip()
      return
    }
    const role = str(raw["role"])
    const text = messageText(raw["content"], () => builder.skip())
    if (role === undefined || text === undefined || !CHAT_ROLES.has(role)) {
      builder.skip()
      return
    }
    const next = messages[index + 1]
    const nextRole = Predicate.isRecord(next) ? next["role"] : undefined
    switch (role) {
      case "system":
        if (text.length > 0) builder.add({ actor: "system", role: "system", kind: "message", content: text, source })
        return
      case "user": {
        if (text === PLAN_FOLLOW_UP) return
        const content = text.startsWith("New task:\n") ? text.slice("New task:\n".length) : text
        if (content.length > 0) builder.add({ actor: "user", role: "user", kind: "message", content, source })
        return
      }
      case "assistant": {
        if (text.trim().length === 0) return
        if (nextRole === "user" && Predicate.isRecord(next) && messageText(next["content"], () => undefined) === PLAN_FOLLOW_UP) {
          builder.add({ actor: AGENT, role: "agent", kind: "thought", content: text, source })
          return
        }
        if (nextRole === "tool-call") {
          // The call itself is read from the tool-call message: here only the thought before it.
          if (TOOL_CALL_COPY.test(text)) return
          const thought = thoughtBeforeCode(text)
          if (thought !== undefined) {
            if (thought.length > 0) builder.add({ actor: AGENT, role: "agent", kind: "thought", content: thought, source })
            return
          }
          builder.add({ actor: AGENT, role: "agent", kind: "thought", content: text, source })
          return
        }
        builder.add({ actor: AGENT, role: "agent", kind: "message", content: text, source })
        return
      }
      case "tool-call": {
        const listed = text.startsWith("Calling tools:\n") ? text.slice("Calling tools:\n".length) : text
        const calls = callsOf(parsePythonLiteral(listed))
        if (calls === undefined || calls.length === 0) {
          builder.skip()
          lastCalls = []
          return
        }
        lastCalls = calls
        calls.forEach((call, k) => {
          builder.add({ actor: AGENT, role: "agent", kind: "tool_call", tool: call.name, content: call.args, source: calls.length === 1 ? source : `${source}.calls[${k}]`, call_id: call.id })
        })
        return
      }
      case "tool-response": {
        const only = lastCalls.length === 1 ? lastCalls[0] : undefined
        const tool = only?.name
        const error = errorOf(text)
        if (error !== undefined) builder.add({ actor: tool ?? AGENT, role: tool === undefined ? "agent" : "tool", kind: "error", tool, content: error, source, call_id: only?.id, status: "error" })
        else builder.add({ actor: tool ?? "tool", role: "tool", kind: "tool_result", tool, content: observationText(text), source, call_id: only?.id })
        return
      }
    }
  })
}

/** One benchmark record as a trace. */
const readRecord = (record: Rec, prefix: string, id: string | null): NormalizedTrace | undefined => {
  const builder = makeTraceBuilder(id)
  const question = str(record["question"])
  const steps = record["intermediate_steps"]
  const answer = record["answer"]
  const answerText = answer === undefined || answer === null ? undefined : argsText(answer)
  const startedAt = typeof record["start_time"] === "number" ? isoOfEpoch(record["start_time"], "unix") : undefined
  const hasTaskMessage = Array.isArray(steps) && steps.some((step) => Predicate.isRecord(step) && step["role"] === "user")
  if (question !== undefined && !hasTaskMessage) {
    builder.add({ actor: "user", role: "user", kind: "message", content: question, source: at(prefix, "question"), timestamp: startedAt })
  }
  if (Array.isArray(steps)) {
    if (steps.length > 0 && steps.every((step) => isStep(step))) readSteps(builder, steps, at(prefix, "intermediate_steps"))
    else readMessages(builder, steps, at(prefix, "intermediate_steps"))
  }
  const vanilla = record["agent_action_type"] === "vanilla" || typeof steps === "string"
  if (answerText !== undefined && answerText.length > 0) {
    if (Array.isArray(steps) && steps.length === 0 && !vanilla) {
      // The run raised before it wrote its memory: the answer is the exception's text.
      builder.add({ actor: AGENT, role: "agent", kind: "error", content: answerText, source: at(prefix, "answer") })
      builder.setSuccess(false)
    } else if (vanilla) {
      builder.add({ actor: AGENT, role: "agent", kind: "message", content: answerText, source: at(prefix, "answer") })
    }
    builder.setOutcome(answerText)
  }
  if (question !== undefined) builder.setTask(question)
  if (builder.eventCount() === 0) return undefined
  return builder.build()
}

/** The events of memory steps (ActionStep, PlanningStep, TaskStep, FinalAnswerStep, SystemPromptStep dicts). */
const readSteps = (builder: TraceBuilder, steps: ReadonlyArray<unknown>, prefix: string): { task?: string; outcome?: string } => {
  const found: { task?: string; outcome?: string } = {}
  steps.forEach((step, index) => {
    const source = `${prefix}[${index}]`
    const kind = stepKind(step)
    if (kind === undefined || !Predicate.isRecord(step)) {
      builder.skip()
      return
    }
    const timing = step["timing"]
    const start = Predicate.isRecord(timing) && typeof timing["start_time"] === "number" ? isoOfEpoch(timing["start_time"], "unix") : undefined
    const add = (event: Omit<EventInput, "timestamp">) => builder.add({ ...event, timestamp: start })
    switch (kind) {
      case "system": {
        const prompt = str(step["system_prompt"])
        if (prompt !== undefined) add({ actor: "system", role: "system", kind: "message", content: prompt, source: at(source, "system_prompt") })
        return
      }
      case "task": {
        const task = str(step["task"])
        if (task === undefined) return
        found.task ??= task
        add({ actor: "user", role: "user", kind: "message", content: task, source: at(source, "task") })
        return
      }
      case "planning": {
        const plan = str(step["plan"])
        if (plan !== undefined) add({ actor: AGENT, role: "agent", kind: "thought", content: plan, source: at(source, "plan") })
        return
      }
      case "final": {
        const output = step["output"]
        if (output !== undefined && output !== null) found.outcome = argsText(output)
        return
      }
      case "action": {
        const output = str(step["model_output"]) ?? modelOutputText(step["model_output_message"])
        const calls = callsOf(step["tool_calls"]) ?? []
        // the step's model call: its token usage on the first event it gave (DECISIONS §23)
        const usage = step["token_usage"]
        const input = Predicate.isRecord(usage) ? countOf(usage["input_tokens"]) : undefined
        const produced = Predicate.isRecord(usage) ? countOf(usage["output_tokens"]) : undefined
        let tokens: TokenUsage | undefined = input === undefined && produced === undefined ? undefined : { input, output: produced }
        const addModel = (event: Omit<EventInput, "timestamp">) => {
          add(tokens === undefined ? event : { ...event, tokens })
          tokens = undefined
        }
        if (output !== undefined && output.trim().length > 0) {
          if (calls.length === 0) addModel({ actor: AGENT, role: "agent", kind: "message", content: output, source: at(source, "model_output") })
          else if (!TOOL_CALL_COPY.test(output)) {
            const thought = thoughtBeforeCode(output) ?? output
            if (thought.length > 0) addModel({ actor: AGENT, role: "agent", kind: "thought", content: thought, source: at(source, "model_output") })
          }
        }
        calls.forEach((call, k) => addModel({ actor: AGENT, role: "agent", kind: "tool_call", tool: call.name, content: call.args, source: `${source}.tool_calls[${k}]`, call_id: call.id }))
        const only = calls.length === 1 ? calls[0] : undefined
        const tool = only?.name
        const observations = step["observations"]
        if (typeof observations === "string" && observations.length > 0) {
          add({ actor: tool ?? "tool", role: "tool", kind: "tool_result", tool, content: observations, source: at(source, "observations"), call_id: only?.id })
        }
        const error = step["error"]
        if (error !== undefined && error !== null) {
          const message = Predicate.isRecord(error) ? str(error["message"]) ?? compactJson(error) : argsText(error)
          const type = Predicate.isRecord(error) ? str(error["type"]) : undefined
          add({ actor: tool ?? AGENT, role: tool === undefined ? "agent" : "tool", kind: "error", tool, content: message, source: at(source, "error"), call_id: only?.id, status: "error", status_code: type })
        }
        if (step["is_final_answer"] === true && step["action_output"] !== undefined && step["action_output"] !== null) {
          found.outcome = argsText(step["action_output"])
        }
        return
      }
    }
  })
  return found
}

const modelOutputText = (message: unknown): string | undefined => {
  if (!Predicate.isRecord(message)) return undefined
  const content = message["content"]
  if (typeof content === "string") return content
  return Array.isArray(content) ? messageText(content, () => undefined) : undefined
}

const idOfRecord = (record: Rec, index: number | undefined): string | null =>
  str(record["task_id"]) ?? str(record["question_id"]) ?? (index === undefined ? null : String(index))

const fail = (message: string) => Either.left(`smolagents: ${message}`)

export const smolagentsImporter: Importer = {
  format: "smolagents",
  detect: detectSafely(detect),
  read: (body) => {
    const steps = stepsOf(body)
    if (steps !== undefined) {
      const builder = makeTraceBuilder(null)
      const prefix = Array.isArray(body) ? "" : Predicate.isRecord(body) && Predicate.isRecord(body["memory"]) ? "memory.steps" : "steps"
      if (Predicate.isRecord(body)) {
        const prompt = str(body["system_prompt"])
        if (prompt !== undefined) builder.add({ actor: "system", role: "system", kind: "message", content: prompt, source: "system_prompt" })
      }
      const found = readSteps(builder, steps, prefix)
      if (found.task !== undefined) builder.setTask(found.task)
      if (found.outcome !== undefined) builder.setOutcome(found.outcome)
      if (builder.eventCount() === 0) return fail("no readable steps")
      return Either.right([builder.build()])
    }
    if (isBenchmarkRecord(body)) {
      const trace = readRecord(body, "", idOfRecord(body, undefined))
      return trace === undefined ? fail("the record holds no question, steps or answer") : Either.right([trace])
    }
    if (!Array.isArray(body)) return fail("expected a benchmark record, a list of them (JSON Lines), or agent memory steps")
    const { traces } = readEach(body, (record, index) => (isBenchmarkRecord(record) ? readRecord(record, `[${index}]`, idOfRecord(record, index)) : undefined))
    return traces.length === 0 ? fail("no readable records") : Either.right(traces)
  }
}
