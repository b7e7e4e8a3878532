/**
 * Model calls (DECISIONS §12): request bodies, responses, `{request, response}` pairs and lists of
 * them, read in order (instructions, input / messages, output / choices, errors) through
 * `addHistory`, into one conversation.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { CallFacts, EventInput } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import type { NormalizedTrace } from "../../Model.js"
import { at, declaredToolsOf, jsonText, type Rec, type Who } from "../Common.js"
import { chatMessageEvents } from "./Chat.js"
import { isCompletion, isItem, isResponsesBody } from "./Detect.js"
import { fail, isoTime, makeReader, type Options, type Reader, usageOf } from "./Reader.js"
import { itemEvents } from "./Responses.js"

const errorText = (error: unknown): string => {
  if (typeof error === "string") return error
  if (Predicate.isRecord(error)) return stringField(error, "message") ?? stringField(error, "code") ?? jsonText(error)
  return jsonText(error)
}

/** True when a record is one model call (or its request, its response, or both). */
const isCall = (value: Rec): boolean =>
  Array.isArray(value["messages"]) ||
  isCompletion(value) ||
  isResponsesBody(value) ||
  "input" in value ||
  Predicate.isRecord(value["request"]) ||
  Predicate.isRecord(value["response"]) ||
  (Predicate.isRecord(value["error"]) && !("role" in value) && !("type" in value))

/** Where a call's response starts among its events, with what the response says of the call (DECISIONS §23). */
export interface ResponseRead {
  readonly at: number
  readonly facts: CallFacts
  readonly source: string
  readonly timestamp: string | undefined
}

/** A call's events in order, and its response when it holds one. */
export interface CallRead {
  readonly events: Array<EventInput>
  readonly response: ResponseRead | undefined
}

/** An error object's code: its `code`, else its `type` (`rate_limit_exceeded`, `invalid_request_error`). */
const errorCode = (error: unknown): string | undefined =>
  Predicate.isRecord(error) ? stringField(error, "code") ?? stringField(error, "type") : undefined

/** The first choice's finish reason, or a Responses response's reason for stopping short. */
const finishReasonOf = (call: Rec): string | undefined => {
  const choices = call["choices"]
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined
  if (Predicate.isRecord(first)) return stringField(first, "finish_reason")
  const details = call["incomplete_details"]
  return Predicate.isRecord(details) ? stringField(details, "reason") : undefined
}

/** The events of one call in order: instructions, input / messages, output / choices, errors. */
export const callEvents = (reader: Reader, call: Rec, prefix: string, options: Options): CallRead => {
  const events: Array<EventInput> = []
  let response: ResponseRead | undefined
  /** A nested call's events, its response's place moved to where they land. */
  const adopt = (nested: CallRead) => {
    if (response === undefined && nested.response !== undefined) response = { ...nested.response, at: nested.response.at + events.length }
    events.push(...nested.events)
  }
  const depth = options.depth ?? 0
  const request = call["request"]
  if (Predicate.isRecord(request)) {
    if (depth < 2) adopt(callEvents(reader, request, at(prefix, "request"), { ...options, depth: depth + 1 }))
    else reader.builder.skip()
  }
  const withRequest = Predicate.isRecord(request) || Array.isArray(call["messages"]) || "input" in call
  // The tools the request offered (a Responses response echoes them).
  if (Array.isArray(call["tools"])) reader.builder.declareTools(declaredToolsOf(call["tools"]))

  const instructions = options.echo === true ? undefined : call["instructions"]
  if (typeof instructions === "string" && instructions.length > 0) {
    events.push({ actor: "system", role: "system", kind: "message", content: instructions, source: at(prefix, "instructions") })
  } else if (Array.isArray(instructions)) {
    instructions.forEach((item, index) => events.push(...itemEvents(reader, item, `${at(prefix, "instructions")}[${index}]`, options)))
  }
  const messages = call["messages"]
  if (Array.isArray(messages)) {
    messages.forEach((message, index) => {
      const source = `${at(prefix, "messages")}[${index}]`
      if (Predicate.isRecord(message)) events.push(...chatMessageEvents(reader, message, source, options))
      else reader.builder.skip()
    })
  }
  const input = call["input"]
  if (typeof input === "string") {
    if (input.length > 0) events.push({ actor: "user", role: "user", kind: "message", content: input, source: at(prefix, "input") })
  } else if (Array.isArray(input)) {
    input.forEach((item, index) => events.push(...itemEvents(reader, item, `${at(prefix, "input")}[${index}]`, options)))
  }

  const id = stringField(call, "id")
  const answer = events.length
  const choices = call["choices"]
  let timestamp = options.timestamp
  if (Array.isArray(choices)) {
    if (id !== undefined) reader.responses.push(id)
    timestamp = options.timestamp ?? isoTime(call["created"])
    choices.forEach((choice, index) => {
      const message = Predicate.isRecord(choice) ? choice["message"] : undefined
      if (Predicate.isRecord(message)) events.push(...chatMessageEvents(reader, message, `${at(prefix, "choices")}[${index}].message`, { ...options, timestamp }))
      else reader.builder.skip()
    })
  }
  const output = call["output"]
  if (Array.isArray(output)) {
    if (id !== undefined && call["object"] === "response") reader.responses.push(id)
    timestamp = options.timestamp ?? isoTime(call["completed_at"]) ?? isoTime(call["created_at"])
    output.forEach((item, index) => events.push(...itemEvents(reader, item, `${at(prefix, "output")}[${index}]`, { ...options, timestamp })))
  }

  const agent: Who = { actor: options.assistant ?? "assistant", role: "agent" }
  const status = stringField(call, "status")
  const error = call["error"]
  let state: CallFacts["status"]
  if (error !== undefined && error !== null) {
    reader.failed = true
    state = "error"
    const message = Predicate.isRecord(error) ? stringField(error, "message") : undefined
    events.push({ actor: agent.actor, role: agent.role, kind: "error", content: errorText(error), source: at(prefix, "error"), status: "error", status_code: errorCode(error), status_message: message })
  } else if (status === "failed" || status === "cancelled") {
    reader.failed = true
    state = "error"
    events.push({ actor: agent.actor, role: agent.role, kind: "error", content: status, source: at(prefix, "status"), status: "error", status_code: status })
  } else if (status === "incomplete") {
    reader.failed = true
    const details = call["incomplete_details"]
    const reason = Predicate.isRecord(details) ? stringField(details, "reason") : undefined
    events.push({ actor: agent.actor, role: agent.role, kind: "error", content: reason ?? status, source: reason === undefined ? at(prefix, "status") : at(prefix, "incomplete_details.reason"), status: "error", status_code: status })
  } else if (status === "completed" && call["object"] === "response") {
    reader.completed = true
    state = "ok"
  }
  // A response (choices, output items, an error or a final status) answers the call.
  if (Array.isArray(choices) || Array.isArray(output) || state !== undefined || status === "incomplete") {
    response = {
      at: answer,
      facts: { status: state, finish_reason: finishReasonOf(call), tokens: usageOf(call["usage"]) },
      source: Array.isArray(choices) ? at(prefix, "choices") : Array.isArray(output) ? at(prefix, "output") : prefix.length > 0 ? prefix : "response",
      timestamp
    }
  }

  const nested = call["response"]
  if (Predicate.isRecord(nested)) {
    if (depth < 2) adopt(callEvents(reader, nested, at(prefix, "response"), { ...options, echo: withRequest, depth: depth + 1 }))
    else reader.builder.skip()
  }
  return { events, response }
}

/** A call's events through `addHistory`, its response's facts on the response's first new event. */
export const addCall = (reader: Reader, read: CallRead, actor: string): void => {
  const { response } = read
  reader.builder.addHistory(read.events, response === undefined ? undefined : { call: { outputAt: response.at, facts: response.facts, actor, source: response.source, timestamp: response.timestamp } })
}

const finish = (reader: Reader): NormalizedTrace => {
  if (reader.failed) reader.builder.setSuccess(false)
  else if (reader.completed) reader.builder.setSuccess(true)
  const trace = reader.builder.build()
  return reader.responses.length === 1 ? { ...trace, id: reader.responses[0] ?? trace.id } : trace
}

export const readConversation = (body: unknown): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const reader = makeReader(null)
  const { builder } = reader
  if (Array.isArray(body)) {
    body.forEach((element, index) => {
      if (Predicate.isRecord(element) && !isItem(element) && !("role" in element) && isCall(element)) {
        addCall(reader, callEvents(reader, element, `[${index}]`, {}), "assistant")
      } else {
        for (const event of itemEvents(reader, element, `[${index}]`, {})) builder.add(event)
      }
    })
  } else if (Predicate.isRecord(body) && (isItem(body) || "role" in body)) {
    for (const event of itemEvents(reader, body, "", {})) builder.add(event)
  } else if (Predicate.isRecord(body) && isCall(body)) {
    addCall(reader, callEvents(reader, body, "", {}), "assistant")
  } else {
    return fail("expected Chat Completions messages, a Responses API response or items, or an Agents SDK trace export")
  }
  if (builder.eventCount() === 0) return fail(`no readable messages, items or errors (${builder.build().skipped} records skipped)`)
  return Either.right([finish(reader)])
}
