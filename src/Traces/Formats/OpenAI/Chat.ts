/**
 * Chat Completions messages (DECISIONS §12): roles, text and refusal content, assistant
 * `tool_calls` (content the `arguments` verbatim), `tool` / `function` results resolved to the
 * tool's name through `tool_call_id`.
 */
import * as Predicate from "effect/Predicate"
import type { EventInput } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import { jsonText, type Rec } from "../Common.js"
import { contentOf, type Options, type Reader, speaker, toolResult } from "./Reader.js"

export const chatMessageEvents = (reader: Reader, message: Rec, source: string, options: Options): Array<EventInput> => {
  const role = stringField(message, "role")
  const name = stringField(message, "name")
  const timestamp = options.timestamp
  if (role === "tool" || role === "function") {
    const content = contentOf(reader, message["content"]) ?? ""
    return [toolResult(reader, stringField(message, "tool_call_id"), role === "function" ? name : undefined, content, source, timestamp)]
  }
  const who = speaker(role, name, options)
  if (who === undefined) {
    reader.builder.skip()
    return []
  }
  const events: Array<EventInput> = []
  const text = contentOf(reader, message["content"])
  if (text !== undefined && text.length > 0) events.push({ actor: who.actor, role: who.role, kind: "message", content: text, source, timestamp })
  const refusal = stringField(message, "refusal")
  if (refusal !== undefined && refusal.length > 0 && refusal !== text) events.push({ actor: who.actor, role: who.role, kind: "message", content: refusal, source, timestamp })
  const calls = message["tool_calls"]
  if (Array.isArray(calls)) {
    calls.forEach((call, index) => {
      const fn = Predicate.isRecord(call) ? call["function"] : undefined
      if (!Predicate.isRecord(call) || !Predicate.isRecord(fn)) {
        reader.builder.skip()
        return
      }
      const tool = stringField(fn, "name") ?? stringField(call, "type") ?? "tool"
      const id = stringField(call, "id")
      if (id !== undefined) reader.tools.set(id, tool)
      events.push({ actor: who.actor, role: who.role, kind: "tool_call", content: jsonText(fn["arguments"]), tool, source: `${source}.tool_calls[${index}]`, timestamp, call_id: id })
    })
  }
  const legacy = message["function_call"]
  if (Predicate.isRecord(legacy)) {
    const tool = stringField(legacy, "name") ?? "function"
    events.push({ actor: who.actor, role: who.role, kind: "tool_call", content: jsonText(legacy["arguments"]), tool, source: `${source}.function_call`, timestamp })
  }
  // a message with nothing at all (its content, if there was one, was counted by contentOf)
  if (events.length === 0 && (message["content"] === null || message["content"] === undefined)) reader.builder.skip()
  return events
}
