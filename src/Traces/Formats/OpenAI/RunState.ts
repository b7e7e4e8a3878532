/**
 * An OpenAI Agents SDK `RunState` (what `RunState.to_json()` writes to pause a run and resume it
 * later, e.g. for a tool approval): `{$schemaVersion, original_input, generated_items, trace?, ...}`.
 * The user's input (a string, or Responses input items) comes first, then each generated item's
 * `raw_item` (a Responses item: message, function call and output, reasoning, hosted tool call) by
 * the item's `agent.name`; `handoff_output_item`s are handoffs from `source_agent` to
 * `target_agent`. A `tool_approval_item` repeats a call already read (the approval it waits for is
 * not trace content) and is counted in `skipped`. An input item that is also a generated item (the
 * same `id`: history the run owns, carried in its input) is read once, as the generated item with
 * its agent. The trace id is the state's `trace.id` when it has one.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import { stringField } from "../../Importer.js"
import type { NormalizedTrace } from "../../Model.js"
import type { Rec } from "../Common.js"
import { fail, makeReader } from "./Reader.js"
import { itemEvents } from "./Responses.js"

/** True for a serialized RunState: a schema version, the original input and the generated items. */
export const isRunState = (value: Rec): boolean =>
  typeof value["$schemaVersion"] === "string" && Array.isArray(value["generated_items"]) && "original_input" in value

const agentName = (value: unknown): string | undefined => (Predicate.isRecord(value) ? stringField(value, "name") : undefined)

export const readRunState = (state: Rec): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const trace = state["trace"]
  const reader = makeReader(Predicate.isRecord(trace) ? stringField(trace, "id") ?? null : null)
  const { builder } = reader
  const items = state["generated_items"]
  const generated = new Set(
    (Array.isArray(items) ? items : []).flatMap((item: unknown) => {
      const raw = Predicate.isRecord(item) ? item["raw_item"] : undefined
      const id = Predicate.isRecord(raw) ? stringField(raw, "id") : undefined
      return id === undefined ? [] : [id]
    })
  )
  const input = state["original_input"]
  if (typeof input === "string") {
    if (input.length > 0) builder.add({ actor: "user", role: "user", kind: "message", content: input, source: "original_input" })
  } else if (Array.isArray(input)) {
    input.forEach((item: unknown, index) => {
      const id = Predicate.isRecord(item) ? stringField(item, "id") : undefined
      if (id !== undefined && generated.has(id)) return builder.skip()
      for (const event of itemEvents(reader, item, `original_input[${index}]`, {})) builder.add(event)
    })
  } else builder.skip()
  const list: ReadonlyArray<unknown> = Array.isArray(items) ? items : []
  list.forEach((item, index) => {
    const source = `generated_items[${index}]`
    if (!Predicate.isRecord(item)) return builder.skip()
    const type = stringField(item, "type")
    if (type === "tool_approval_item") return builder.skip()
    if (type === "handoff_output_item") {
      const from = agentName(item["source_agent"]) ?? agentName(item["agent"]) ?? "assistant"
      const to = agentName(item["target_agent"])
      if (to === undefined) return builder.skip()
      return builder.add({ actor: from, role: "agent", kind: "handoff", content: `handoff to ${to}`, to, source })
    }
    for (const event of itemEvents(reader, item["raw_item"], `${source}.raw_item`, { assistant: agentName(item["agent"]) })) builder.add(event)
  })
  if (builder.eventCount() === 0) return fail(`the RunState holds no readable input or items (${builder.build().skipped} records skipped)`)
  return Either.right([builder.build()])
}
