/**
 * The labelled check set (issue 48, DECISIONS §23 "Measured, not asserted"): for a seed, `per`
 * items per injector, each a carrier fixture with one failure written in and labelled with the
 * checks it must raise and the `source` of the event it was injected into (found in the trace as
 * the importer reads it), beside the fixtures checked as successful (successful.ts), labelled
 * with no check. Items are `{id, trace, format, split, kit, carrier, expect: {checks: [{check,
 * source, sources}], tolerated, outcome?}}`; `svc eval --method checks` reads them.
 */
import { Either } from "effect"
import { raisedLimits } from "../../scripts/trace-files.js"
import type { NormalizedTrace, TraceFormat } from "../../src/Traces/Model.js"
import { keepAsRead, normalizeTrace } from "../../src/Traces/Normalize.js"
import { INJECTORS, type Injector } from "./Injectors.js"
import { readFixture } from "./Kits/Kit.js"
import { PLANS } from "./Plans.js"
import { rngOf } from "./Random.js"
import type { CheckId } from "./Scenario.js"
import { SUCCESSFUL } from "./successful.js"

export interface ExpectedCheck {
  readonly check: CheckId
  /** The event the failure was injected into. */
  readonly source: string
  /** Every event a finding may cite and still localise (the labelled one first): a loop's calls, a claim and its error. */
  readonly sources: ReadonlyArray<string>
}

export interface CheckItem {
  /** `<check>/<kit>/<n>`, or `successful/<fixture>`. */
  readonly id: string
  readonly trace: unknown
  readonly format: TraceFormat
  /** The injected check, or `successful`. */
  readonly split: string
  /** The kit and carrier fixture the item was made from. */
  readonly kit: string
  readonly carrier: string
  readonly expect: {
    readonly checks: ReadonlyArray<ExpectedCheck>
    readonly tolerated: ReadonlyArray<CheckId>
    /** The successful fixtures are real runs labelled so. */
    readonly outcome?: "successful"
  }
}

/** A trace as the importers read it (one trace: carriers and injections hold one). */
export const normalizedOf = (trace: unknown, format: TraceFormat): NormalizedTrace => {
  const read = normalizeTrace(trace, format, raisedLimits, keepAsRead)
  if (Either.isLeft(read)) throw new Error(`${format}: ${read.left.message}`)
  const [first, ...rest] = read.right.traces
  if (first === undefined || rest.length > 0) throw new Error(`${format}: ${read.right.traces.length} traces where one was written`)
  return first
}

/** One injected item; throws when the injection cannot be found again in its trace. */
export const injectedItem = (seed: number, injector: Injector, index: number): CheckItem => {
  const { check, kit } = injector
  const id = `${check}/${kit.name}/${index}`
  const rng = rngOf(seed, id)
  const carrier = rng.pick(kit.carriers)
  const plan = PLANS[check](kit, carrier, rng)
  const trace = kit.inject(carrier, plan.injection, rng)
  // the item holds the trace as JSON would give it back
  const stored: unknown = JSON.parse(JSON.stringify(trace))
  const { events } = normalizedOf(stored, kit.format)
  const checks = plan.expect.map((expectation): ExpectedCheck => {
    const found = expectation.locate.find(events)
    const first = found[0] === undefined ? undefined : events[found[0]]
    if (first === undefined) throw new Error(`${id} (${carrier.path}): ${expectation.locate.what} is not among the normalized events`)
    const also = (expectation.also ?? []).flatMap((locator) => locator.find(events))
    const sources = Array.from(new Set([...found, ...also].flatMap((at) => events[at]?.source ?? [])))
    return { check: expectation.check, source: first.source, sources }
  })
  return { id, trace: stored, format: kit.format, split: check, kit: kit.name, carrier: carrier.path, expect: { checks, tolerated: plan.tolerated } }
}

/** The successful fixtures as items that expect no check. */
export const successfulItems = (): ReadonlyArray<CheckItem> =>
  SUCCESSFUL.map((entry) => {
    const raw = readFixture(entry.path)
    // a JSON Lines file keeps its shape: a list, of the one record
    const trace: unknown = entry.record === undefined ? raw : Array.isArray(raw) && raw[entry.record] !== undefined ? [raw[entry.record]] : undefined
    if (trace === undefined) throw new Error(`${entry.path}: no record ${entry.record ?? 0}`)
    normalizedOf(trace, entry.format)
    return {
      id: `successful/${entry.path}${entry.record === undefined ? "" : `#${entry.record}`}`,
      trace,
      format: entry.format,
      split: "successful",
      kit: "fixture",
      carrier: entry.path,
      expect: { checks: [], tolerated: [], outcome: "successful" }
    }
  })

/** The whole set: `per` items per injector, then the successful fixtures. */
export const generate = (options: { readonly seed: number; readonly per: number; readonly injectors?: ReadonlyArray<Injector> }): ReadonlyArray<CheckItem> => [
  ...(options.injectors ?? INJECTORS).flatMap((injector) => Array.from({ length: options.per }, (_, index) => injectedItem(options.seed, injector, index))),
  ...successfulItems()
]
