/**
 * The `inspect` importer (DECISIONS §12): Inspect AI eval logs in JSON (`inspect eval
 * --log-format json`, `inspect log convert`): `{version, status, eval, plan, results, stats,
 * samples: [EvalSample]}`, or one sample on its own (`{id, epoch, input, messages, ...}`). The
 * zipped `.eval` form is not read here.
 *
 * Each sample is one trace, its id the sample's `id` (`<id>:<epoch>` when the epoch is above 1).
 * Its `messages` (ChatMessage: `system`, `user`, `assistant`, `tool`) are read in order: content a
 * string or a list of parts (`text` joined into one message, `reasoning` a thought, images, audio,
 * video, documents and data skipped and counted); an assistant's `tool_calls` (`{id, function,
 * arguments}`) are tool calls with the arguments as JSON; a `tool` message is the result of
 * `function`, or an error when it has `error` (`{type, message}`). `attachment://<hash>` contents
 * are resolved from the sample's `attachments`. A sample `error` and the output's `error` are
 * errors (success = false).
 *
 * Dataset labels are never read: `target`, `scores`, the log's `results` and `reductions`, and the
 * sample's `metadata` and `store`. The transcript (`events`) repeats the messages and is not read;
 * `output.choices` repeats the last assistant message. The task is the first user message (else
 * the sample's `input`), never the model's answer. Sources: `samples[0].messages[4]`,
 * `samples[0].messages[4].tool_calls[1]`, `samples[0].messages[3].content[0]`, `samples[0].error`.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { EventInput, TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { at, detectSafely, idOf, jsonText, nonEmpty, readEach, type Rec, type Who } from "./Common.js"

// ---------------------------------------------------------------------------------------------
// Detection

/** An eval log: an `eval` spec naming its task or model, with `samples` or a log header's `version` and `status`. */
const isEvalLog = (body: Rec): boolean => {
  const spec = body["eval"]
  if (!Predicate.isRecord(spec)) return false
  if (typeof spec["task"] !== "string" && typeof spec["model"] !== "string") return false
  return Array.isArray(body["samples"]) || (typeof body["version"] === "number" && typeof body["status"] === "string")
}

/** One EvalSample: an id, a numeric epoch, an input and a message list. */
const isSample = (body: Rec): boolean =>
  idOf(body["id"]) !== undefined && typeof body["epoch"] === "number" && "input" in body && Array.isArray(body["messages"])

const detect = (body: unknown): boolean => Predicate.isRecord(body) && (isEvalLog(body) || isSample(body))

// ---------------------------------------------------------------------------------------------
// Reading

const ROLES: Readonly<Record<string, Who>> = {
  system: { actor: "system", role: "system" },
  user: { actor: "user", role: "user" },
  assistant: { actor: "assistant", role: "agent" }
}

interface Reader {
  readonly builder: TraceBuilder
  readonly attachments: Rec
  /** tool call id → function name. */
  readonly tools: Map<string, string>
}

/** A string with its `attachment://<hash>` reference resolved, when the sample holds it. */
const resolved = (reader: Reader, text: string): string => {
  if (!text.startsWith("attachment://")) return text
  const value = reader.attachments[text.slice("attachment://".length)]
  return typeof value === "string" ? value : text
}

/** The events of a message's content: a string, or parts (texts joined into one message at the message). */
const contentEvents = (reader: Reader, content: unknown, who: Who, source: string): Array<EventInput> => {
  if (typeof content === "string") {
    const text = resolved(reader, content)
    return text.length > 0 ? [{ actor: who.actor, role: who.role, kind: "message", content: text, source }] : []
  }
  if (content === undefined || content === null) return []
  if (!Array.isArray(content)) {
    reader.builder.skip()
    return []
  }
  const events: Array<EventInput> = []
  const texts: Array<string> = []
  let textAt = -1
  content.forEach((part, index) => {
    const type = Predicate.isRecord(part) ? stringField(part, "type") : undefined
    if (Predicate.isRecord(part) && type === "text" && typeof part["text"] === "string") {
      if (textAt < 0) textAt = events.length
      texts.push(resolved(reader, part["text"]))
    } else if (Predicate.isRecord(part) && type === "reasoning" && typeof part["reasoning"] === "string" && part["redacted"] !== true) {
      const reasoning = resolved(reader, part["reasoning"])
      if (reasoning.length > 0) events.push({ actor: who.actor, role: who.role, kind: "thought", content: reasoning, source: `${source}.content[${index}]` })
    } else {
      // images, audio, video, documents, data, redacted reasoning, unknown parts
      reader.builder.skip()
    }
  })
  const text = texts.join("\n")
  if (text.length > 0) events.splice(textAt, 0, { actor: who.actor, role: who.role, kind: "message", content: text, source })
  return events
}

/** The events of one ChatMessage. */
const messageEvents = (reader: Reader, message: unknown, source: string): Array<EventInput> => {
  if (!Predicate.isRecord(message)) {
    reader.builder.skip()
    return []
  }
  const role = stringField(message, "role") ?? ""
  if (role === "tool") {
    const callId = stringField(message, "tool_call_id")
    const name = stringField(message, "function") ?? (callId === undefined ? undefined : reader.tools.get(callId))
    const error = message["error"]
    const content = contentEvents(reader, message["content"], { actor: name ?? "tool", role: "tool" }, source)
      .filter((event) => event.kind === "message")
      .map((event) => event.content)
      .join("\n")
    if (Predicate.isRecord(error) || typeof error === "string") {
      const text = typeof error === "string" ? error : nonEmpty(stringField(error, "message")) ?? stringField(error, "type") ?? content
      const code = typeof error === "string" ? undefined : stringField(error, "type")
      const message = typeof error === "string" ? error : stringField(error, "message")
      return [{ actor: name ?? "tool", role: "tool", kind: "error", content: text, tool: name, source, call_id: callId, status: "error", status_code: code, status_message: message }]
    }
    return [{ actor: name ?? "tool", role: "tool", kind: "tool_result", content, tool: name, source, call_id: callId }]
  }
  const who = Object.hasOwn(ROLES, role) ? ROLES[role] : undefined
  if (who === undefined) {
    reader.builder.skip()
    return []
  }
  const events = contentEvents(reader, message["content"], who, source)
  const calls = message["tool_calls"]
  if (role === "assistant" && Array.isArray(calls)) {
    calls.forEach((call, index) => {
      const name = Predicate.isRecord(call) ? stringField(call, "function") : undefined
      if (!Predicate.isRecord(call) || name === undefined) {
        reader.builder.skip()
        return
      }
      const id = stringField(call, "id")
      if (id !== undefined) reader.tools.set(id, name)
      events.push({ actor: who.actor, role: who.role, kind: "tool_call", content: jsonText(call["arguments"] ?? {}), tool: name, source: `${source}.tool_calls[${index}]`, call_id: id })
    })
  }
  return events
}

/** The sample's input as a task: a string, or its first user message's text. */
const inputTask = (input: unknown): string => {
  if (typeof input === "string") return input
  if (!Array.isArray(input)) return ""
  for (const message of input) {
    if (Predicate.isRecord(message) && message["role"] === "user") {
      const content = message["content"]
      if (typeof content === "string") return content
      if (Array.isArray(content)) {
        return content.flatMap((part) => (Predicate.isRecord(part) && part["type"] === "text" && typeof part["text"] === "string" ? [part["text"]] : [])).join("\n")
      }
    }
  }
  return ""
}

/** The text of an error: a string, or `{message}`. */
const errorText = (error: unknown): string | undefined => {
  if (typeof error === "string") return nonEmpty(error)
  if (Predicate.isRecord(error)) return nonEmpty(stringField(error, "message")) ?? jsonText(error)
  return undefined
}

/** One sample's trace (undefined when it holds no event). */
const readSample = (sampleRecord: Rec, prefix: string): NormalizedTrace | undefined => {
  const sampleId = idOf(sampleRecord["id"])
  const epoch = sampleRecord["epoch"]
  const id = sampleId === undefined ? null : typeof epoch === "number" && epoch > 1 ? `${sampleId}:${epoch}` : sampleId
  const attachments = sampleRecord["attachments"]
  const reader: Reader = { builder: makeTraceBuilder(id), attachments: Predicate.isRecord(attachments) ? attachments : {}, tools: new Map() }
  const { builder } = reader
  const messages = sampleRecord["messages"]
  if (Array.isArray(messages)) {
    messages.forEach((message, index) => {
      for (const event of messageEvents(reader, message, `${at(prefix, "messages")}[${index}]`)) builder.add(event)
    })
  }
  const output = sampleRecord["output"]
  const outputError = Predicate.isRecord(output) ? errorText(output["error"]) : undefined
  if (outputError !== undefined) {
    builder.add({ actor: "assistant", role: "agent", kind: "error", content: outputError, source: at(prefix, "output.error") })
    builder.setSuccess(false)
  }
  const sampleError = errorText(sampleRecord["error"])
  if (sampleError !== undefined) {
    builder.add({ actor: "system", role: "system", kind: "error", content: sampleError, source: at(prefix, "error") })
    builder.setSuccess(false)
  }
  const trace = builder.build()
  if (trace.events.length === 0) return undefined
  const firstUser = trace.events.find((event) => event.role === "user" && event.kind === "message" && event.content.trim().length > 0)
  return { ...trace, task: firstUser?.content ?? inputTask(sampleRecord["input"]) }
}

const fail = (message: string) => Either.left(`inspect: ${message}`)

export const inspectImporter: Importer = {
  format: "inspect",
  detect: detectSafely(detect),
  read: (body) => {
    if (!Predicate.isRecord(body) || !detect(body)) return fail("expected an Inspect AI eval log in JSON (`{eval, samples}`) or one sample")
    if (!isEvalLog(body)) {
      const trace = readSample(body, "")
      return trace === undefined ? fail("the sample holds no readable messages") : Either.right([trace])
    }
    const samples = body["samples"]
    if (!Array.isArray(samples) || samples.length === 0) return fail("the log holds no samples (a header only); write the log with its samples")
    // samples that hold nothing are counted on the first trace
    const { traces, unread } = readEach(samples, (record, index) => (Predicate.isRecord(record) ? readSample(record, `samples[${index}]`) : undefined))
    return traces.length === 0 ? fail(`no sample holds readable messages (${unread} samples)`) : Either.right(traces)
  }
}
