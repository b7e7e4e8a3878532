/**
 * The importers' time per MiB (issue 30), held to the 4 MiB path's ratio. Each trace family's
 * fixtures are grown by repeating their records to about 1 MiB and about 4 MiB (span formats with
 * new trace and span ids per copy, so a copy is another trace, as in a real batch, not the same
 * spans again). Per fixture, in this process and in the same run:
 * - the service: its bytes parsed (JSON, or JSON Lines line by line) and normalized (reading,
 *   history de-duplication, the limits);
 * - the baseline: the same bytes parsed and hashed (SHA-256), what the bare baseline server of
 *   `bench/run.ts` does with a body;
 * - the ratio, service / baseline, per MiB.
 * The 4 MiB path, the OTLP/JSON export of `npm run bench`'s analyze path, is measured the same way
 * first; its ratio is the goal: every family's costliest fixture at 4 MiB within it. Also
 * reported: linearity, the time per MiB at 4 MiB over that at 1 MiB (a quadratic reader shows
 * about 4x). Fixtures that cannot be grown (a single span's attribute map) are left out. Medians of
 * BENCH_ROUNDS (default 7) runs after two warm-ups.
 *
 *   npx tsx bench/importers.ts   (part of `npm run bench`; BENCH_ONLY=importers runs it alone)
 */
import { Either, Predicate } from "effect"
import { createHash } from "node:crypto"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { IMPORTER_OF, keepAsRead, normalizeTrace } from "../src/Traces/Normalize.js"
import type { ImportedFormat } from "../src/Traces/Importer.js"
import { raisedLimits, traceFileBody } from "../scripts/trace-files.js"
import { median, otlpExport, round2, type Row } from "./support.js"

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 7)
const TARGET = 4 * 1024 * 1024
const FIXTURES = join(import.meta.dirname, "..", "test", "fixtures", "traces")

const limits = raisedLimits
const MIB = 1048576

/** A fixture's body (undefined for a zip or the folder's README). */
const bodyOf = (path: string): unknown => (path.endsWith(".eval") || path.endsWith(".md") ? undefined : traceFileBody(path))

/** Keys of span, trace and parent ids (OTLP, flat span exports, OpenInference, OTel SDK dumps). */
const ID_KEY = /^(trace|span|parent|parent_span|parentSpan)_?[iI]d$/

/** Copy `k` of a record: its span and trace ids made new (hex ids stay hex of the same length). */
const renumbered = (value: unknown, k: number): unknown => {
  if (Array.isArray(value)) return value.map((item) => renumbered(item, k))
  if (!Predicate.isRecord(value)) return value
  const copy: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    copy[key] = typeof child === "string" && ID_KEY.test(key) && k > 0
      ? /^[0-9a-fA-F]{8,}$/.test(child)
        ? `${child.slice(0, -6)}${k.toString(16).padStart(6, "0")}`
        : `${child}.${k}`
      : renumbered(child, k)
  }
  return copy
}

/** The body grown to about `target` bytes: its records (a list, or its longest list field) repeated. */
const grown = (body: unknown, target: number): unknown => {
  const size = JSON.stringify(body).length
  const times = Math.max(1, Math.round(target / Math.max(1, size)))
  const copies = (list: ReadonlyArray<unknown>) => Array.from({ length: times }, (_, k) => renumbered(list, k)).flat()
  if (Array.isArray(body)) return copies(body)
  if (!Predicate.isRecord(body)) return body
  const [field] = Object.entries(body)
    .filter((entry): entry is [string, Array<unknown>] => Array.isArray(entry[1]))
    .sort((a, b) => JSON.stringify(b[1]).length - JSON.stringify(a[1]).length)[0] ?? []
  if (field === undefined) return body
  const list = body[field]
  return Array.isArray(list) ? { ...body, [field]: copies(list) } : body
}

/** The bytes of a body as it is sent: JSON, or JSON Lines for a fixture read from JSON Lines. */
const bytesOf = (body: unknown, lines: boolean): Buffer =>
  Buffer.from(lines && Array.isArray(body) ? body.map((record) => JSON.stringify(record)).join("\n") : JSON.stringify(body))

/** The bytes parsed as the service parses them (JSON Lines: each line). */
const parsed = (bytes: Buffer, lines: boolean): unknown => {
  const text = bytes.toString("utf8")
  return lines ? text.split("\n").map((line): unknown => JSON.parse(line)) : JSON.parse(text)
}

/** Median milliseconds of `run`, after two warm-ups. */
const timed = (run: () => void): number => {
  run()
  run()
  const times: Array<number> = []
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now()
    run()
    times.push(performance.now() - started)
  }
  return median(times)
}

interface Cost {
  readonly mib: number
  /** Parse and normalize, ms per MiB. */
  readonly service: number
  /** Parse and hash, ms per MiB. */
  readonly baseline: number
}

/** The costs of `body` read as `format`; undefined when it is not read. */
const costOf = (body: unknown, format: ImportedFormat, lines: boolean): Cost | undefined => {
  const bytes = bytesOf(body, lines)
  if (Either.isLeft(normalizeTrace(parsed(bytes, lines), format, limits, keepAsRead))) return undefined
  const mib = bytes.length / MIB
  const baseline = timed(() => {
    createHash("sha256").update(bytes).digest("hex")
    parsed(bytes, lines)
  })
  const service = timed(() => {
    normalizeTrace(parsed(bytes, lines), format, limits, keepAsRead)
  })
  return { mib, service: service / mib, baseline: baseline / mib }
}

const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const rows: Array<Row> = []
const export4MiB = ONLY.size === 0 || ONLY.has("importers") ? otlpExport(TARGET) : undefined
/** The 4 MiB path's ratio, measured again beside each family (this machine's noise moves it by up to 1.5x between runs). */
const pathRatios: Array<number> = []
const pathRatio = (): number => {
  const path = export4MiB === undefined ? undefined : costOf(export4MiB, "otel", false)
  if (path !== undefined) pathRatios.push(path.service / path.baseline)
  return path === undefined ? Number.NaN : path.service / path.baseline
}
for (const family of export4MiB === undefined ? [] : Object.keys(IMPORTER_OF).filter((name): name is ImportedFormat => Object.hasOwn(IMPORTER_OF, name))) {
  let dir: Array<string>
  try {
    dir = readdirSync(join(FIXTURES, family))
  } catch {
    continue
  }
  const costs = dir.flatMap((name) => {
    const file = join(FIXTURES, family, name)
    const body = bodyOf(file)
    if (body === undefined) return []
    const lines = name.endsWith(".jsonl")
    const large = costOf(grown(body, TARGET), family, lines)
    // a body that cannot be grown (one span's attribute map) says nothing per MiB
    if (large === undefined || large.mib < 1) return []
    const small = costOf(grown(body, TARGET / 4), family, lines)
    return small === undefined ? [] : [{ name, small, large, ratio: large.service / large.baseline }]
  })
  if (costs.length === 0) continue
  const goal = pathRatio()
  const worst = costs.reduce((a, b) => (b.ratio > a.ratio ? b : a))
  const growth = Math.max(...costs.map((cost) => cost.large.service / cost.small.service))
  rows.push({
    scenario: `normalize ${family} (${costs.length} fixtures grown to ~4 MiB; the costliest, ${worst.name})`,
    metric: "ms per MiB",
    service: round2(worst.large.service),
    baseline: round2(worst.large.baseline),
    ratio: round2(worst.ratio),
    goal: `<= the 4 MiB path's ratio; linear`,
    met: worst.ratio <= goal && growth <= 2,
    detail: { growth: round2(growth), path: round2(goal) }
  })
}
if (pathRatios.length > 0) {
  console.log(`The 4 MiB path (the OTLP/JSON export, parsed and normalized, over parsed and hashed): ${pathRatios.map(round2).join(" ")}x, measured beside each family`)
}
if (rows.length > 0) console.table(rows.map(({ baseline, detail, met, ratio, scenario, service }) => ({
  scenario,
  "ms/MiB": service,
  "baseline ms/MiB": baseline,
  ratio,
  "4 MiB path": detail?.["path"],
  "4 MiB / 1 MiB": detail?.["growth"],
  met
})))
