/**
 * A digest of every finding the checks make (docs/checks.md "What checks cost"): run before and
 * after a change that must not change behaviour (the checks' cost work); the digests must match.
 * Over every trace of test/fixtures/traces and ../shared/corpus, and of the labelled check sets of
 * seeds 1..--seeds (20 items per injector), each under three settings: the defaults, every threshold
 * at its minimum, and every error expected. Prints one sha256 per source and one over all of them.
 *
 *   npx tsx scripts/checks-findings-digest.ts [--seeds 4]
 */
import { Either } from "effect"
import { createHash } from "node:crypto"
import { join, relative } from "node:path"
import { parseArgs } from "node:util"
import { generate, normalizedOf } from "../eval/inject/Generate.js"
import { DEFAULT_CHECKS, runChecks, type ScopeChecks } from "../src/Checks/Run.js"
import type { NormalizedTrace } from "../src/Traces/Model.js"
import { keepAsRead, normalizeTraces } from "../src/Traces/Normalize.js"
import { raisedLimits, traceFileBody, traceFilesUnder } from "./trace-files.js"

const { values } = parseArgs({ options: { seeds: { type: "string", default: "4" } } })
const seeds = Number(values.seeds)

const LOWERED: ScopeChecks = {
  enabled: () => true,
  settingsOf: (check) => ({ threshold: (name) => check.thresholds?.[name]?.minimum ?? 0, expected: () => false })
}
const EXPECTED: ScopeChecks = {
  enabled: () => true,
  settingsOf: (check) => ({ threshold: (name) => check.thresholds?.[name]?.default ?? 0, expected: () => true })
}
const SCOPES: ReadonlyArray<readonly [string, ScopeChecks]> = [["defaults", DEFAULT_CHECKS], ["lowered", LOWERED], ["expected", EXPECTED]]

const root = join(import.meta.dirname, "..")

/** Each named trace of the fixtures and the corpus, as the bench reads them. */
const fileTraces = (dir: string): Array<readonly [string, NormalizedTrace]> =>
  traceFilesUnder(dir).flatMap((path) => {
    let body: unknown
    try {
      body = traceFileBody(path)
    } catch {
      return []
    }
    if (body === undefined) return []
    const read = normalizeTraces(body, "auto", raisedLimits, keepAsRead)
    if (Either.isLeft(read)) return []
    return read.right.traces.flatMap((trace, index) => Either.isRight(trace) ? [[`${relative(root, path)}#${index}`, trace.right] as const] : [])
  })

const sources: Array<readonly [string, () => Array<readonly [string, NormalizedTrace]>]> = [
  ["fixtures", () => fileTraces(join(root, "test", "fixtures", "traces"))],
  ["corpus", () => fileTraces(join(root, "..", "shared", "corpus"))],
  ...Array.from({ length: seeds }, (_, index) => [
    `check set, seed ${index + 1}`,
    () => generate({ seed: index + 1, per: 20 }).map((item) => [item.id, normalizedOf(item.trace, item.format)] as const)
  ] as const)
]

const all = createHash("sha256")
for (const [name, tracesOf] of sources) {
  const digest = createHash("sha256")
  const traces = tracesOf()
  let findings = 0
  for (const [scopeName, scope] of SCOPES) {
    for (const [id, trace] of traces) {
      const found = runChecks(trace, scope)
      findings += found.length
      digest.update(`${scopeName}\0${id}\0${JSON.stringify(found)}\n`)
    }
  }
  const hex = digest.digest("hex")
  all.update(`${name}\0${hex}\n`)
  process.stdout.write(`${name}: ${traces.length} traces, ${findings} findings over ${SCOPES.length} settings, sha256 ${hex}\n`)
}
process.stdout.write(`all: sha256 ${all.digest("hex")}\n`)
