/**
 * The importers' time per MiB (issue 30): each trace family's fixtures, grown by repeating their
 * records to about 1 MiB and to about 4 MiB, normalized in this process (reading, history
 * de-duplication, the limits). Per family, the costliest fixture's milliseconds per MiB at 4 MiB;
 * its ratio to the 4 MiB OTLP/JSON export of `npm run bench`'s intake path, normalized in the same
 * run (reported: formats of many short events cost more per MiB than one of long spans); and the
 * goal, linearity: the time per MiB at 4 MiB within 2x of that at 1 MiB (a quadratic reader shows
 * about 4x; this machine's noise alone gave 0.9-1.7x). Medians of BENCH_ROUNDS
 * (default 7) runs after two warm-ups.
 *
 *   npx tsx bench/importers.ts   (part of `npm run bench`; BENCH_ONLY=importers runs it alone)
 */
import { Either, Predicate } from "effect"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { IMPORTER_OF, normalizeTrace } from "../src/Traces/Normalize.js"
import type { ImportedFormat } from "../src/Traces/Importer.js"
import { raisedLimits, traceFileBody } from "../scripts/trace-files.js"
import { median, otlpExport, round2, type Row } from "./support.js"

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 7)
const TARGET = 4 * 1024 * 1024
const FIXTURES = join(import.meta.dirname, "..", "test", "fixtures", "traces")

const limits = raisedLimits

/** A fixture's body (undefined for a zip or the folder's README). */
const bodyOf = (path: string): unknown => (path.endsWith(".eval") || path.endsWith(".md") ? undefined : traceFileBody(path))

/** The body grown to about `target` bytes: its records (a list, or its longest list field) repeated. */
const grown = (body: unknown, target: number): unknown => {
  const size = JSON.stringify(body).length
  const times = Math.max(1, Math.round(target / Math.max(1, size)))
  if (Array.isArray(body)) return Array.from({ length: times }, () => body).flat()
  if (!Predicate.isRecord(body)) return body
  const [field] = Object.entries(body)
    .filter((entry): entry is [string, Array<unknown>] => Array.isArray(entry[1]))
    .sort((a, b) => JSON.stringify(b[1]).length - JSON.stringify(a[1]).length)[0] ?? []
  if (field === undefined) return body
  const list = body[field]
  return Array.isArray(list) ? { ...body, [field]: Array.from({ length: times }, () => list).flat() } : body
}

/** Median milliseconds per MiB of normalizing `body` as `format`; undefined when it is not read. */
const msPerMiB = (body: unknown, format: ImportedFormat): number | undefined => {
  const mib = JSON.stringify(body).length / 1048576
  const once = () => {
    const started = performance.now()
    const read = normalizeTrace(body, format, limits)
    return Either.isRight(read) ? performance.now() - started : undefined
  }
  if (once() === undefined) return undefined
  once()
  const times: Array<number> = []
  for (let i = 0; i < ROUNDS; i++) times.push(once() ?? Number.NaN)
  return median(times) / mib
}

const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const rows: Array<Row> = []
const baseline = ONLY.size === 0 || ONLY.has("importers") ? msPerMiB(otlpExport(TARGET), "otel") : undefined
for (const family of baseline === undefined ? [] : Object.keys(IMPORTER_OF).filter((name): name is ImportedFormat => Object.hasOwn(IMPORTER_OF, name))) {
  let dir: Array<string>
  try {
    dir = readdirSync(join(FIXTURES, family))
  } catch {
    continue
  }
  const costs = dir.flatMap((name) => {
    const body = bodyOf(join(FIXTURES, family, name))
    if (body === undefined) return []
    const small = msPerMiB(grown(body, TARGET / 4), family)
    const large = msPerMiB(grown(body, TARGET), family)
    return small === undefined || large === undefined ? [] : [{ small, large }]
  })
  if (costs.length === 0) continue
  const worst = costs.reduce((a, b) => (b.large > a.large ? b : a))
  const growth = Math.max(...costs.map((cost) => cost.large / cost.small))
  rows.push({
    scenario: `normalize ${family} (${costs.length} fixtures, ~4 MiB each; the costliest)`,
    metric: "ms per MiB",
    service: round2(worst.large),
    baseline: round2(baseline ?? 0),
    ratio: round2(worst.large / (baseline ?? 1)),
    goal: "linear: ms/MiB at 4 MiB <= 2x at 1 MiB",
    met: growth <= 2,
    detail: { growth: round2(growth) }
  })
}
if (rows.length > 0) console.table(rows.map(({ baseline: base, detail, goal, met, metric, ratio, scenario, service }) => ({
  scenario,
  metric,
  service,
  "otlp 4 MiB": base,
  "ratio to otlp": ratio,
  "4 MiB / 1 MiB": detail?.["growth"],
  goal,
  met
})))
