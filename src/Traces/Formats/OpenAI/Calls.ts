/**
 * Model calls (DECISIONS §12): request bodies, responses, `{request, response}` pairs and lists of
 * them, read in order (instructions, input / messages, output / choices, errors) through
 * `addHistory`, into one conversation.
 */
import { Either, Predicate } from "effect"
import type { EventInput } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import type { NormalizedTrace } from "../../Model.js"
import { at, jsonText, type Rec, type Who } from "../Common.js"
import { chatMessageEvents } from "./Chat.js"
import { isCompletion, isItem, isResponsesBody } from "./Detect.js"
import { fail, isoTime, makeReader, type Options, type Reader } from "./Reader.js"
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

/** The events of one call in order: instructions, input / messages, output / choices, errors. */
export const callEvents = (reader: Reader, call: Rec, prefix: string, options: Options): Array<EventInput> => {
  const events: Array<EventInput> = []
  const depth = options.depth ?? 0
  const request = call["request"]
  if (Predicate.isRecord(request)) {
    if (depth < 2) events.push(...callEvents(reader, request, at(prefix, "request"), { ...options, depth: depth + 1 }))
    else reader.builder.skip()
  }
  const withRequest = Predicate.isRecord(request) || Array.isArray(call["messages"]) || "input" in call

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
  const choices = call["choices"]
  if (Array.isArray(choices)) {
    if (id !== undefined) reader.responses.push(id)
    const timestamp = options.timestamp ?? isoTime(call["created"])
    choices.forEach((choice, index) => {
      const message = Predicate.isRecord(choice) ? choice["message"] : undefined
      if (Predicate.isRecord(message)) events.push(...chatMessageEvents(reader, message, `${at(prefix, "choices")}[${index}].message`, { ...options, timestamp }))
      else reader.builder.skip()
    })
  }
  const output = call["output"]
  if (Array.isArray(output)) {
    if (id !== undefined && call["object"] === "response") reader.responses.push(id)
    const timestamp = options.timestamp ?? isoTime(call["completed_at"]) ?? isoTime(call["created_at"])
    output.forEach((item, index) => events.push(...itemEvents(reader, item, `${at(prefix, "output")}[${index}]`, { ...options, timestamp })))
  }

  const agent: Who = { actor: options.assistant ?? "assistant", role: "agent" }
  const status = stringField(call, "status")
  const error = call["error"]
  if (error !== undefined && error !== null) {
    reader.failed = true
    events.push({ actor: agent.actor, role: agent.role, kind: "error", content: errorText(error), source: at(prefix, "error") })
  } else if (status === "failed" || status === "cancelled") {
    reader.failed = true
    events.push({ actor: agent.actor, role: agent.role, kind: "error", content: status, source: at(prefix, "status") })
  } else if (status === "incomplete") {
    reader.failed = true
    const details = call["incomplete_details"]
    const reason = Predicate.isRecord(details) ? stringField(details, "reason") : undefined
    events.push({ actor: agent.actor, role: agent.role, kind: "error", content: reason ?? status, source: reason === undefined ? at(prefix, "status") : at(prefix, "incomplete_details.reason") })
  } else if (status === "completed" && call["object"] === "response") {
    reader.completed = true
  }

  const response = call["response"]
  if (Predicate.isRecord(response)) {
    if (depth < 2) events.push(...callEvents(reader, response, at(prefix, "response"), { ...options, echo: withRequest, depth: depth + 1 }))
    else reader.builder.skip()
  }
  return events
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
        builder.addHistory(callEvents(reader, element, `[${index}]`, {}))
      } else {
        for (const event of itemEvents(reader, element, `[${index}]`, {})) builder.add(event)
      }
    })
  } else if (Predicate.isRecord(body) && (isItem(body) || "role" in body)) {
    for (const event of itemEvents(reader, body, "", {})) builder.add(event)
  } else if (Predicate.isRecord(body) && isCall(body)) {
    builder.addHistory(callEvents(reader, body, "", {}))
  } else {
    return fail("expected Chat Completions messages, a Responses API response or items, or an Agents SDK trace export")
  }
  if (builder.eventCount() === 0) return fail(`no readable messages, items or errors (${builder.build().skipped} records skipped)`)
  return Either.right([finish(reader)])
}
