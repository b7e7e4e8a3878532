/**
 * What `svc eval` does (Commands/Eval.ts declares the command): diagnose, a baseline or the checks on
 * each labelled item, the results kept in --out, the summary printed. Loaded when the command runs.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import { Catalogue, CatalogueLive } from "../../../Catalogue/Catalogue.js"
import { AppConfig, loadConfig } from "../../../Config.js"
import type { TraceFormat } from "../../../Traces/Model.js"
import { type Backend, CliFailure } from "../Backend.js"
import { lensFields } from "../CommonOptions.js"
import { EXIT, type ExitCode } from "../ExitCodes.js"
import { emit, pretty } from "../Output.js"
import { printable } from "../Printable.js"
import type { ProgressView } from "../Progress.js"
import { backendOf } from "../Running.js"
import { baselineOf } from "./Baselines.js"
import { type Baseline, type EvalItem, readDataset } from "./Dataset.js"
import { type Accuracy, type ItemResult, lensAgreement, predictionOf, score, type Summary, summarize } from "./Score.js"
import { checkItem, checksTable, isCheckItemResult, summarizeChecks } from "./Checks.js"

/** Kinds that say the whole run cannot go on (no service, no key): the command stops, nothing is scored wrong for them. */
const FATAL = new Set(["usage", "unreachable", "unauthorized", "forbidden", "unexpected"])

const keyOf = (file: string, setting: string, method: string) => `${method}\u0000${setting}\u0000${file}`

/** The results already in --out, as they were written (the lines this command wrote; others are skipped). */
const resultsIn = (path: string): Array<ItemResult> => {
  if (!existsSync(path)) return []
  return readFileSync(path, "utf8").split("\n").flatMap((line) => {
    if (line.trim() === "") return []
    try {
      const value: unknown = JSON.parse(line)
      return isItemResult(value) ? [value] : []
    } catch {
      return []
    }
  })
}

const isItemResult = (value: unknown): value is ItemResult =>
  typeof value === "object" && value !== null && "scores" in value && "label" in value && "predicted" in value &&
  "file" in value && typeof value.file === "string" && "setting" in value && typeof value.setting === "string" &&
  "method" in value && typeof value.method === "string"

/** `--fail-under`: `agent=0.4,step=0.1` (agent, step, span, coverage), or a bare fraction for the agent accuracy. */
type Measure = keyof Pick<Summary, "agent_accuracy" | "step_accuracy" | "span_accuracy" | "category_accuracy" | "coverage">

export const parseFailUnder = (text: string): Either.Either<ReadonlyArray<readonly [Measure, number]>, string> => {
  const names = new Map<string, Measure>([["agent", "agent_accuracy"], ["step", "step_accuracy"], ["span", "span_accuracy"], ["category", "category_accuracy"], ["coverage", "coverage"]])
  const parts = text.split(",").map((part) => part.trim()).filter((part) => part.length > 0)
  const out: Array<readonly [Measure, number]> = []
  for (const part of parts) {
    const match = /^(?:(agent|step|span|category|coverage)=)?(0(?:\.\d+)?|1(?:\.0+)?)$/.exec(part)
    const name = names.get(match?.[1] ?? "agent")
    if (match === null || name === undefined) return Either.left(`--fail-under must be a fraction 0-1 or name=fraction pairs (agent, step, span, category, coverage), e.g. agent=0.4,step=0.1 (got ${JSON.stringify(part.slice(0, 40))})`)
    out.push([name, Number(match[2])])
  }
  return out.length === 0 ? Either.left("--fail-under names no threshold") : Either.right(out)
}

const percent = (value: number | null) => (value === null ? "–" : `${(value * 100).toFixed(1)}%`)

/** The summary as a table for a terminal. */
export const table = (summary: Summary): string => {
  const rows: Array<readonly [string, Accuracy]> = [["all", summary]]
  if (Object.keys(summary.settings).length > 1) for (const [name, accuracy] of Object.entries(summary.settings)) rows.push([`ground truth: ${name}`, accuracy])
  for (const [name, accuracy] of Object.entries(summary.splits)) rows.push([name, accuracy])
  const measures = (["agent_accuracy", "step_accuracy", "span_accuracy", "category_accuracy"] as const).filter((measure) => rows.some(([, accuracy]) => accuracy[measure] !== null))
  const width = Math.max(14, ...rows.map(([name]) => name.length))
  const line = (cells: ReadonlyArray<string>) => cells.map((cell, index) => (index === 0 ? cell.padEnd(width) : cell.padStart(10))).join("  ")
  const out = [
    `svc eval: ${summary.n} items, ${summary.method}${summary.errors > 0 ? `, ${summary.errors} without an answer (counted wrong)` : ""}`,
    line(["", "n", "coverage", ...measures.map((measure) => measure.replace("_accuracy", ""))]),
    ...rows.map(([name, accuracy]) => line([printable(name), String(accuracy.n), percent(accuracy.coverage), ...measures.map((measure) => percent(accuracy[measure]))]))
  ]
  const lensNames = Object.keys(summary.lenses)
  if (lensNames.length > 0) {
    out.push("", line(["lens agreement", "n", "agent", "step"]))
    for (const name of lensNames) {
      const lens = summary.lenses[name]
      if (lens !== undefined) out.push(line([name, String(lens.n), percent(lens.agent_agreement), percent(lens.step_agreement)]))
    }
  }
  out.push(
    "",
    `cost: ${summary.cost.llm_calls} model calls, ${summary.cost.input_tokens} input and ${summary.cost.output_tokens} output tokens; time: ${(summary.time.elapsed_ms / 1000).toFixed(1)} s in all, ${
      summary.time.mean_ms === null ? "–" : `${(summary.time.mean_ms / 1000).toFixed(1)} s`
    } per item`
  )
  return `${out.join("\n")}\n`
}

/** A summary and its table. */
const rendered = <S>(summary: S, show: (summary: S) => string) => ({ summary, shown: show(summary) })

interface EvalOptions {
  readonly setting: "without" | "with"
  readonly method: string
  readonly fields: Readonly<Record<string, unknown>>
}

/** One item through diagnose: its result, or the failure that stops the command. */
const diagnoseItem = (backend: Backend, item: EvalItem, options: EvalOptions) =>
  Effect.gen(function*() {
    const started = performance.now()
    const hints = options.setting === "with" && item.groundTruth !== null ? { hints: { ground_truth: item.groundTruth } } : {}
    const envelope = { trace: item.trace, ...(item.format === undefined ? {} : { format: item.format }), ...options.fields, ...hints }
    const answer = yield* Effect.either(backend.diagnose(envelope, false))
    const elapsed = Math.round(performance.now() - started)
    const base = { file: item.file, split: item.split, setting: options.setting, method: options.method, label: { agent: item.label.agent, step: item.label.step, spans: item.label.spans } }
    if (Either.isLeft(answer)) {
      if (FATAL.has(answer.left.kind)) return yield* answer.left
      return {
        ...base,
        predicted: null,
        scores: score(item.label, null),
        lenses: [],
        tokens: { input: 0, output: 0, llm_calls: 0 },
        elapsed_ms: elapsed,
        error: `${answer.left.kind}: ${answer.left.message.slice(0, 300)}`
      } satisfies ItemResult
    }
    const report = answer.right.report
    const predicted = predictionOf(report)
    return {
      ...base,
      predicted,
      scores: score(item.label, predicted),
      lenses: lensAgreement(report, item.label),
      tokens: { input: report.usage.input_tokens, output: report.usage.output_tokens, llm_calls: report.usage.llm_calls },
      elapsed_ms: elapsed,
      error: null
    } satisfies ItemResult
  })

/** The normalize answer's decoder (the traces contract, with the HttpApi it declares, loaded by a baseline run only). */
const normalizedDecoder = Effect.map(Effect.promise(() => import("../../../Contract/TracesContract.js")), ({ NormalizedOne }) => Schema.decodeUnknownEither(NormalizedOne))

/** One item through a baseline: its trace normalized (no model), then the baseline's pick. */
const baselineItem = (backend: Backend, item: EvalItem, baseline: Baseline, entries: typeof Catalogue.Service.entries, setting: "without" | "with") =>
  Effect.gen(function*() {
    const started = performance.now()
    const base = { file: item.file, split: item.split, setting, method: `baseline:${baseline}`, label: { agent: item.label.agent, step: item.label.step, spans: item.label.spans } }
    const decodeNormalized = yield* normalizedDecoder
    const normalized = yield* Effect.either(backend.normalize({ trace: item.trace, ...(item.format === undefined ? {} : { format: item.format }), select: 0 }))
    const read = Either.flatMap(normalized, (value) => Either.mapLeft(decodeNormalized(value), () => new CliFailure({ kind: "unexpected", message: "the normalized trace could not be read" })))
    if (Either.isLeft(read)) {
      if (FATAL.has(read.left.kind)) return yield* read.left
      return { ...base, predicted: null, scores: score(item.label, null), lenses: [], tokens: { input: 0, output: 0, llm_calls: 0 }, elapsed_ms: Math.round(performance.now() - started), error: `${read.left.kind}: ${read.left.message.slice(0, 300)}` } satisfies ItemResult
    }
    const format: TraceFormat = read.right.format
    const picked = baselineOf(baseline, entries, format, read.right.trace, item.label)
    return { ...base, ...picked, lenses: [], tokens: { input: 0, output: 0, llm_calls: 0 }, elapsed_ms: Math.round(performance.now() - started), error: null } satisfies ItemResult
  })

/** The catalogue's entries, for the triage baseline (loaded here, whichever backend). */
const catalogueEntries = Effect.gen(function*() {
  const config = yield* Effect.mapError(loadConfig, (error) => new CliFailure({ kind: "usage", message: error.message }))
  const context = yield* Layer.build(CatalogueLive.pipe(Layer.provide(Layer.succeed(AppConfig, config)))).pipe(
    Effect.mapError((error) => new CliFailure({ kind: "unexpected", message: `the catalogue could not be loaded: ${String(error)}` }))
  )
  return (yield* Effect.provide(Catalogue, context)).entries
})


/** The options of `svc eval` (Commands/Eval.ts declares them). */
export interface EvalCommandOptions {
  readonly dataset: string
  readonly mode: Option.Option<string>
  readonly model: Option.Option<string>
  readonly patterns: Option.Option<string>
  readonly maxPatterns: Option.Option<number>
  readonly budgetTokens: Option.Option<number>
  readonly concurrency: number
  readonly withGroundTruth: boolean
  readonly baseline: Option.Option<Baseline>
  readonly method: "diagnose" | "checks"
  readonly out: Option.Option<string>
  readonly format: "table" | "json"
  readonly failUnder: Option.Option<string>
  readonly url: Option.Option<string>
  readonly apiKey: Option.Option<Redacted.Redacted>
}

/** The command's work, loaded when `svc eval` runs (with the catalogue, triage and the contract it reads). */
export const evaluate = (options: EvalCommandOptions, progress: ProgressView): Effect.Effect<ExitCode, CliFailure, Scope.Scope> =>
    Effect.gen(function*() {
      const thresholds = Option.isNone(options.failUnder) ? [] : yield* Either.match(parseFailUnder(options.failUnder.value), {
        onLeft: (message) => Effect.fail(new CliFailure({ kind: "usage", message })),
        onRight: Effect.succeed
      })
      if (!existsSync(options.dataset)) return yield* new CliFailure({ kind: "usage", message: `no dataset at ${options.dataset}` })
      const { items, unread } = yield* Effect.try({
        try: () => readDataset(options.dataset),
        catch: (error) => new CliFailure({ kind: "usage", message: `the dataset could not be read: ${error instanceof Error ? error.message : String(error)}` })
      })
      for (const skipped of unread.slice(0, 5)) process.stderr.write(`svc eval: skipped ${printable(skipped.file)}: ${skipped.reason}\n`)
      if (unread.length > 5) process.stderr.write(`svc eval: skipped ${unread.length - 5} more files or lines\n`)
      if (items.length === 0) return yield* new CliFailure({ kind: "usage", message: `${options.dataset} holds no labelled item (docs/eval.md says which shapes are read)` })
      const setting = options.withGroundTruth ? "with" as const : "without" as const
      if (options.method === "checks" && Option.isSome(options.baseline)) return yield* new CliFailure({ kind: "usage", message: "--method checks scores the checks; it takes no --baseline" })
      const method = options.method === "checks" ? "checks" : Option.match(options.baseline, { onNone: () => "diagnose", onSome: (baseline) => `baseline:${baseline}` })
      const out = Option.getOrUndefined(options.out)
      const earlier = out === undefined ? [] : resultsIn(out)
      const done = new Set(earlier.map((result) => keyOf(result.file, result.setting, result.method)))
      const todo = items.filter((item) => !done.has(keyOf(item.file, setting, method)))
      if (earlier.length > 0 && todo.length < items.length) process.stderr.write(`svc eval: ${items.length - todo.length} items already in ${printable(out ?? "")}; running the other ${todo.length}\n`)
      const backend = yield* backendOf({ ...options, maxBytes: Option.none() }, "svc eval", progress)
      const entries = Option.isSome(options.baseline) && options.baseline.value === "triage" ? yield* catalogueEntries : []
      const fields = {
        ...(Option.isSome(options.mode) ? { mode: options.mode.value } : {}),
        ...(Option.isSome(options.model) ? { model: options.model.value } : {}),
        ...Object.fromEntries(Object.entries(lensFields(options)).filter(([, value]) => value !== undefined))
      }
      // one progress line for the whole run (a line per item would grow with the dataset): items done, model calls, tokens
      const tally = { done: 0, errors: 0, calls: 0, input: 0, output: 0 }
      const tell = (state: "calling" | "done") =>
        progress.listener.report("svc eval", {
          state,
          calls: tally.calls,
          inputTokens: tally.input,
          outputTokens: tally.output,
          note: `${tally.done}/${todo.length} items${tally.errors > 0 ? `, ${tally.errors} without an answer` : ""}`
        })
      tell("calling")
      const one = (item: EvalItem): Effect.Effect<ItemResult, CliFailure> =>
        options.method === "checks" ? checkItem(backend, item, FATAL) : Option.match(options.baseline, {
          onNone: () => diagnoseItem(backend, item, { setting, method, fields }),
          onSome: (baseline) => baselineItem(backend, item, baseline, entries, setting)
        })
      const fresh = yield* Effect.forEach(
        todo,
        (item) =>
          one(item).pipe(Effect.tap((result) =>
            Effect.sync(() => {
              if (out !== undefined) appendFileSync(out, `${JSON.stringify(result)}\n`)
              tally.done += 1
              if (result.error !== null) tally.errors += 1
              tally.calls += result.tokens.llm_calls
              tally.input += result.tokens.input
              tally.output += result.tokens.output
              tell(tally.done === todo.length ? "done" : "calling")
            })
          )),
        { concurrency: options.concurrency }
      )
      progress.stop()
      const files = new Set(items.map((item) => item.file))
      const results = [...earlier.filter((result) => result.method === method && files.has(result.file)), ...fresh]
      const { summary, shown } = options.method === "checks" ? rendered(summarizeChecks(results.filter(isCheckItemResult)), checksTable) : rendered(summarize(results), table)
      yield* emit(options.format === "json" ? pretty(summary) : shown, Option.none())
      const below = thresholds.filter(([name, minimum]) => {
        const value = summary[name]
        return value === null || value < minimum
      })
      for (const [name, minimum] of below) process.stderr.write(`svc eval: ${name} ${percent(summary[name])} is below --fail-under ${minimum}\n`)
      return below.length > 0 ? EXIT.failOn : EXIT.done
    })
