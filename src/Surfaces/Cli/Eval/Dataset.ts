/**
 * `svc eval`'s labelled items (issue 38, docs/eval.md), read from a dataset as it is published:
 * - Who&When-style files (ag2ai/Agents_Failure_Attribution): a JSON object with `history` and the
 *   labels `mistake_agent`, `mistake_step` (the 0-based index in `history`); the split is the
 *   folder the file is in (`Hand-Crafted`, `Algorithm-Generated`). The labels, `ground_truth` and
 *   the other annotation fields are taken off before the trace is sent: they never reach the model.
 * - TRAIL-style files (PatronusAI/TRAIL): `{trace, labels}`, each an object or its JSON text, the
 *   labels `errors: [{category, location, …}]` whose `location` is a span id; scored on location.
 * - JSON Lines: one `{trace, expect: {agent?, step?, span?}, split?, id?, format?, ground_truth?}`
 *   per line; for `--method checks` (docs/eval.md "Checks"), `expect` may instead (or also) hold
 *   `checks: [{check, source, sources?}]` (the checks the item must raise, and the events that
 *   localise them; `[]`: none), `tolerated: [check]` (checks the item may raise without counting
 *   against them) and `outcome: "failed" | "successful"` (a real run's label). Who&When files are
 *   runs that failed.
 * A directory is read recursively, its `.json` and `.jsonl` files in name order.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { basename, dirname, join } from "node:path"

/** The baselines `svc eval --baseline` scores (Baselines.ts), which need no model. */
export const BASELINES = ["random", "first-error", "triage"] as const
export type Baseline = (typeof BASELINES)[number]

/** What a dataset says went wrong: the agent, its step (the dataset's own index), the span. */
export interface Label {
  readonly agent: string | null
  readonly step: number | null
  /** Span ids any of which is the right location (TRAIL: every annotated error's). */
  readonly spans: ReadonlyArray<string>
  /** TRAIL's categories of the errors, by span id. */
  readonly categories: ReadonlyArray<{ readonly span: string; readonly category: string }>
  /** The checks the item must raise (`--method checks`); undefined: the item says nothing of checks. */
  readonly checks?: ReadonlyArray<ExpectedCheck> | undefined
  /** Checks the item may raise without it counting against them. */
  readonly tolerated?: ReadonlyArray<string> | undefined
  /** Whether the run failed or succeeded, when the dataset says. */
  readonly outcome?: "failed" | "successful" | null | undefined
}

/** A check an item must raise, at the event `source` (any of `sources` localises it too). */
export interface ExpectedCheck {
  readonly check: string
  readonly source: string
  readonly sources: ReadonlyArray<string>
}

export interface EvalItem {
  /** The file's path as given (JSON Lines: `<path>:<line>`). */
  readonly file: string
  readonly split: string
  /** The trace as sent to diagnose: the labels taken off. */
  readonly trace: unknown
  /** The trace's format when the dataset's shape says it (Who&When: autogen). */
  readonly format: string | undefined
  readonly label: Label
  /** The task's correct final answer, when the dataset gives it (`--with-ground-truth` sends it). */
  readonly groundTruth: string | null
  /** The item's own id, when the dataset gives one (JSON Lines' `id`). */
  readonly id?: string | undefined
}

/** A file or line that is not a labelled item, and why. */
export interface Unread {
  readonly file: string
  readonly reason: string
}

/** The annotation fields of Who&When-style files: never sent. */
export const LABEL_FIELDS: ReadonlyArray<string> = ["mistake_agent", "mistake_step", "mistake_reason", "mistake_type", "ground_truth", "is_correct", "is_corrected"]

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim().length > 0 ? value.trim() : typeof value === "number" && Number.isFinite(value) ? String(value) : null

/** A step label as the dataset writes it: an integer, or its decimal text (`"12"`); else null. */
export const stepLabel = (value: unknown): number | null => {
  const written = text(value)
  return written !== null && /^\d+$/.test(written) ? Number(written) : null
}

const parsed = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

const noLabel: Label = { agent: null, step: null, spans: [], categories: [] }

/** One of `expect.checks`: `{check, source, sources?}`; skipped when it names no check or source. */
const expectedCheck = (value: unknown): Array<ExpectedCheck> => {
  if (!Predicate.isRecord(value)) return []
  const check = text(value["check"])
  const source = text(value["source"])
  if (check === null || source === null) return []
  const sources = Array.isArray(value["sources"]) ? value["sources"].filter((each): each is string => typeof each === "string") : []
  return [{ check, source, sources: sources.includes(source) ? sources : [source, ...sources] }]
}

/** One JSON value of a file as an item, or why it is none. */
export const itemOf = (value: unknown, file: string, split: string): Either.Either<EvalItem, string> => {
  if (!Predicate.isRecord(value)) return Either.left("not a JSON object")
  // JSON Lines' generic form
  if (Object.hasOwn(value, "expect") && Object.hasOwn(value, "trace")) {
    const expect = value["expect"]
    if (!Predicate.isRecord(expect)) return Either.left("`expect` must be an object {agent?, step?, span?}")
    const span = text(expect["span"])
    const checks = Array.isArray(expect["checks"]) ? expect["checks"].flatMap(expectedCheck) : undefined
    const outcome = expect["outcome"] === "failed" || expect["outcome"] === "successful" ? expect["outcome"] : null
    const tolerated = Array.isArray(expect["tolerated"]) ? expect["tolerated"].filter((each): each is string => typeof each === "string") : []
    const label: Label = { agent: text(expect["agent"]), step: stepLabel(expect["step"]), spans: span === null ? [] : [span], categories: [], checks, tolerated, outcome }
    if (label.agent === null && label.step === null && label.spans.length === 0 && checks === undefined && outcome === null) {
      return Either.left("`expect` names no agent, step, span, checks or outcome")
    }
    return Either.right({
      file,
      split: text(value["split"]) ?? split,
      trace: value["trace"],
      format: text(value["format"]) ?? undefined,
      label,
      groundTruth: text(value["ground_truth"]),
      id: text(value["id"]) ?? undefined
    })
  }
  // TRAIL: {trace, labels: {errors: [{category, location}]}}
  if (Object.hasOwn(value, "trace") && Object.hasOwn(value, "labels")) {
    const labels = parsed(value["labels"])
    const errors = Predicate.isRecord(labels) && Array.isArray(labels["errors"]) ? labels["errors"] : undefined
    if (errors === undefined) return Either.left("`labels` holds no `errors` list")
    const categories = errors.flatMap((error) => {
      if (!Predicate.isRecord(error)) return []
      const span = text(error["location"])
      return span === null ? [] : [{ span, category: text(error["category"]) ?? "" }]
    })
    if (categories.length === 0) return Either.left("no error of `labels.errors` has a `location` (a span id)")
    return Either.right({
      file,
      split,
      trace: parsed(value["trace"]),
      format: undefined,
      label: { ...noLabel, spans: Array.from(new Set(categories.map((each) => each.span))), categories },
      groundTruth: null
    })
  }
  // Who&When: {history, mistake_agent, mistake_step, ...}
  if (Array.isArray(value["history"]) && (Object.hasOwn(value, "mistake_agent") || Object.hasOwn(value, "mistake_step"))) {
    const trace = Object.fromEntries(Object.entries(value).filter(([key]) => !LABEL_FIELDS.includes(key)))
    return Either.right({
      file,
      split,
      trace,
      format: "autogen",
      label: { ...noLabel, agent: text(value["mistake_agent"]), step: stepLabel(value["mistake_step"]), outcome: "failed" },
      groundTruth: text(value["ground_truth"])
    })
  }
  return Either.left("not a labelled item: Who&When-style (history, mistake_agent, mistake_step), TRAIL-style (trace, labels.errors) or {trace, expect}")
}

const filesOf = (path: string): Array<string> =>
  statSync(path).isDirectory()
    ? readdirSync(path).sort().flatMap((name) => (name.startsWith(".") ? [] : filesOf(join(path, name))))
    : [path]

/** The items of a dataset: a file (.json or .jsonl) or a directory of them; what could not be read beside. */
export const readDataset = (path: string): { readonly items: ReadonlyArray<EvalItem>; readonly unread: ReadonlyArray<Unread> } => {
  const items: Array<EvalItem> = []
  const unread: Array<Unread> = []
  const files = filesOf(path).filter((file) => file === path || /\.jsonl?$/i.test(file))
  for (const file of files) {
    const split = basename(dirname(file))
    const content = readFileSync(file, "utf8")
    if (/\.jsonl$/i.test(file)) {
      for (const [index, line] of content.split(/\r?\n/).entries()) {
        if (line.trim().length === 0) continue
        const where = `${file}:${index + 1}`
        const value = parsed(line)
        Either.match(typeof value === "string" ? Either.left("not JSON") : itemOf(value, where, basename(file).replace(/\.jsonl$/i, "")), {
          onLeft: (reason) => unread.push({ file: where, reason }),
          onRight: (item) => items.push(item)
        })
      }
      continue
    }
    const value = parsed(content)
    Either.match(typeof value === "string" ? Either.left("not JSON") : itemOf(value, file, split), {
      onLeft: (reason) => unread.push({ file, reason }),
      onRight: (item) => items.push(item)
    })
  }
  return { items, unread }
}
