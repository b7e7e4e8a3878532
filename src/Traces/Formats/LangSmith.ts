/**
 * LangSmith runs (DECISIONS §12, format `langsmith`): a run tree (`child_runs`, as
 * `RunTree.toJSON()` writes it), a flat list of runs linked by `parent_run_id`, or the SDK's batch
 * payload `{post, patch}` (a patch updates the posted run with the same id).
 *
 * Runs are ordered by `dotted_order` (else `start_time`) and walked depth-first from each root;
 * roots with distinct trace ids are distinct traces. llm runs carry the whole conversation so far
 * in `inputs.messages` (OpenAI-style dicts, LangChain serialized messages, `[[...]]` batches), so
 * their inputs and outputs go through `addHistory`; tool runs add a tool call and its result (or
 * error) unless the model's messages already hold them. Chain runs name the actors (the nearest
 * non-generic chain, or the LangGraph node). Cycles in parent ids, runs without ids and non-object
 * records are skipped and counted.
 *
 * Modules: `LangSmith/Values` (small readers), `LangSmith/Emitter` (history de-duplication),
 * `LangSmith/Messages` (message content), `LangSmith/Runs` (run trees, run lists and batch
 * payloads collected into runs; detection), `LangSmith/Trace` (reading one trace's run tree).
 */
import * as Either from "effect/Either"
import type { Importer } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { detectSafely, idOf } from "./Common.js"
import { collect, compareRuns, detect, parentOf, type Run, traceOf } from "./LangSmith/Runs.js"
import { readTrace } from "./LangSmith/Trace.js"

export const read = (body: unknown): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const { runs, skipped } = collect(body)
  if (runs.size === 0) {
    return Either.left("langsmith: no runs found (expected a run tree with `child_runs`, a list of runs with ids, or the batch payload {post, patch})")
  }
  const ordered = [...runs.values()].sort(compareRuns)
  const children = new Map<string, Array<Run>>()
  const roots: Array<Run> = []
  for (const run of ordered) {
    const parent = parentOf(run)
    if (parent === undefined || (parent !== run.id && !runs.has(parent))) roots.push(run)
    else if (parent !== run.id) {
      const list = children.get(parent)
      if (list === undefined) children.set(parent, [run])
      else list.push(run)
    }
  }
  if (roots.length === 0) return Either.left("langsmith: no root run (every run's `parent_run_id` leads into a cycle)")

  const groups = new Map<string, Array<Run>>()
  for (const root of roots) {
    const key = traceOf(root)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [root])
    else group.push(root)
  }
  // Runs reached from no root sit on a parent-id cycle.
  const reachable = new Set<string>()
  const pending = [...roots]
  for (let run = pending.pop(); run !== undefined; run = pending.pop()) {
    if (reachable.has(run.id)) continue
    reachable.add(run.id)
    for (const child of children.get(run.id) ?? []) pending.push(child)
  }
  for (const run of ordered) {
    if (!reachable.has(run.id)) {
      const key = idOf(run.fields["trace_id"]) ?? ""
      skipped.set(key, (skipped.get(key) ?? 0) + 1)
    }
  }

  const keys = [...groups.keys()]
  const unattributed = [...skipped.entries()].filter(([key]) => !groups.has(key)).reduce((sum, [, n]) => sum + n, 0)
  const visited = new Set<string>()
  const traces: Array<NormalizedTrace> = []
  keys.forEach((key, i) => {
    const group = groups.get(key) ?? []
    const trace = readTrace(key, group, children, visited, (skipped.get(key) ?? 0) + (i === 0 ? unattributed : 0))
    if (trace.events.length > 0) traces.push(trace)
  })
  if (traces.length === 0) return Either.left("langsmith: the runs hold no messages, tool calls, outputs or errors to read")
  return Either.right(traces)
}

export const langSmithImporter: Importer = {
  format: "langsmith",
  detect: detectSafely(detect),
  read
}
