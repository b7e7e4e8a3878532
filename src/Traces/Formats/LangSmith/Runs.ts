/**
 * Collecting LangSmith runs (DECISIONS §12): a run tree (`child_runs`), a run list linked by
 * `parent_run_id`, or the SDK's batch payload `{post, patch}` (a patch updates the posted run),
 * ordered by `dotted_order` (else `start_time`); and detection of these shapes.
 */
import * as Predicate from "effect/Predicate"
import { stringField } from "../../Importer.js"
import { idOf, sample, type Rec } from "../Common.js"
import { RUN_TYPES, timeMs } from "./Values.js"

export interface Run {
  readonly id: string
  readonly index: number
  readonly fields: Record<string, unknown>
  /** The parent given by nesting in a run tree, which wins over `parent_run_id`. */
  structuralParent: string | undefined
}

export const parentOf = (run: Run): string | undefined => run.structuralParent ?? idOf(run.fields["parent_run_id"])
export const traceOf = (run: Run): string => idOf(run.fields["trace_id"]) ?? run.id

interface Collected {
  readonly runs: Map<string, Run>
  /** Records skipped, by trace id when known (`""` when not). */
  readonly skipped: Map<string, number>
}

export const collect = (body: unknown): Collected => {
  const runs = new Map<string, Run>()
  const byDottedOrder = new Map<string, Run>()
  const skipped = new Map<string, number>()
  const skip = (record: unknown) => {
    const trace = Predicate.isRecord(record) ? (idOf(record["trace_id"]) ?? "") : ""
    skipped.set(trace, (skipped.get(trace) ?? 0) + 1)
  }
  let index = 0

  const merge = (run: Run, record: Rec) => {
    for (const [key, value] of Object.entries(record)) {
      if (key === "child_runs" || key === "id" || key === "__proto__" || value === undefined || value === null) continue
      run.fields[key] = value
    }
  }

  interface Pending {
    readonly value: unknown
    readonly parent: string | undefined
    readonly patch: boolean
  }
  const stack: Array<Pending> = []
  const pushAll = (values: ReadonlyArray<unknown>, parent: string | undefined, patch: boolean) => {
    for (let i = values.length - 1; i >= 0; i--) stack.push({ value: values[i], parent, patch })
  }

  if (Predicate.isRecord(body) && (Array.isArray(body["post"]) || Array.isArray(body["patch"]))) {
    // Patches after posts: pushed first, so popped last.
    if (Array.isArray(body["patch"])) pushAll(body["patch"], undefined, true)
    if (Array.isArray(body["post"])) pushAll(body["post"], undefined, false)
  } else if (Predicate.isRecord(body) && Array.isArray(body["runs"])) pushAll(body["runs"], undefined, false)
  else if (Array.isArray(body)) pushAll(body, undefined, false)
  else stack.push({ value: body, parent: undefined, patch: false })

  for (let pending = stack.pop(); pending !== undefined; pending = stack.pop()) {
    const { value, parent, patch } = pending
    if (!Predicate.isRecord(value)) {
      skip(value)
      continue
    }
    const id = idOf(value["id"])
    const dotted = stringField(value, "dotted_order")
    const existing = id !== undefined ? runs.get(id) : patch && dotted !== undefined ? byDottedOrder.get(dotted) : undefined
    let self: string | undefined
    if (existing !== undefined) {
      merge(existing, value)
      if (parent !== undefined) existing.structuralParent = parent
      self = existing.id
    } else if (id !== undefined) {
      const fields: Record<string, unknown> = {}
      const run: Run = { id, index: index++, fields, structuralParent: parent }
      merge(run, value)
      runs.set(id, run)
      if (dotted !== undefined) byDottedOrder.set(dotted, run)
      self = id
    } else {
      skip(value)
      self = parent
    }
    const children = value["child_runs"]
    if (Array.isArray(children)) pushAll(children, self, false)
  }
  return { runs, skipped }
}

export const compareRuns = (a: Run, b: Run): number => {
  const da = stringField(a.fields, "dotted_order")
  const db = stringField(b.fields, "dotted_order")
  if (da !== undefined && db !== undefined && da !== db) return da < db ? -1 : 1
  const ta = timeMs(a.fields["start_time"])
  const tb = timeMs(b.fields["start_time"])
  if (ta !== undefined && tb !== undefined && ta !== tb) return ta - tb
  return a.index - b.index
}

// ---------------------------------------------------------------------------------------------
// Detection

const looksLikeRun = (value: unknown): boolean => {
  if (!Predicate.isRecord(value)) return false
  const type = value["run_type"]
  return (
    typeof type === "string" &&
    RUN_TYPES.has(type) &&
    ("id" in value || "inputs" in value || "child_runs" in value || "trace_id" in value || "dotted_order" in value)
  )
}

export const detect = (body: unknown): boolean => {
  if (Array.isArray(body)) return sample(body).some(looksLikeRun)
  if (!Predicate.isRecord(body)) return false
  if (looksLikeRun(body)) return true
  const post = body["post"]
  const patch = body["patch"]
  if (Array.isArray(post) || Array.isArray(patch)) {
    const records = [...(Array.isArray(post) ? sample(post) : []), ...(Array.isArray(patch) ? sample(patch) : [])]
    if (records.length === 0) return Array.isArray(post) && Array.isArray(patch)
    return records.some(
      (record) => looksLikeRun(record) || (Predicate.isRecord(record) && (typeof record["dotted_order"] === "string" || (typeof record["trace_id"] === "string" && ("inputs" in record || "outputs" in record))))
    )
  }
  const runs = body["runs"]
  return Array.isArray(runs) && sample(runs).some(looksLikeRun)
}
