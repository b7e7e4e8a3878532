/**
 * Redaction measured (DECISIONS §20, the recall issue): per kind, positives generated from the
 * formats' public definitions (test/redaction/generators.ts) and gitleaks' published true
 * positives, recall; per class of negatives (commit SHAs, UUIDs, trace and span ids, base64 images,
 * timestamps, semvers), redactions; the trace fixtures' string values, redactions per 100 KB. The
 * same measurements `test/redaction/recall.test.ts` holds to the issue's figures (recall ≥ 0.99,
 * 0 redactions, ≤ 1 per 100 KB); here they are printed and written to
 * bench/results/redaction-recall-latest.json, misses included, to be read.
 *
 *   npx tsx bench/redaction-recall.ts   (part of `npm run bench`; REDACTION_PER_KIND, default 1000)
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { KINDS } from "../test/redaction/generators.js"
import { measureFixtures, measureGitleaks, measureGitleaksFalsePositives, measureKind, measureNegatives } from "../test/redaction/measure.js"

const PER_KIND = Number(process.env["REDACTION_PER_KIND"] ?? 1000)
const NEGATIVES = 10_000
const RECALL = 0.99

const started = performance.now()
const generated = KINDS.map((kind) => measureKind(kind, PER_KIND))
const gitleaks = measureGitleaks()
const gitleaksFalsePositives = measureGitleaksFalsePositives()
const negatives = measureNegatives(NEGATIVES)
const fixtures = measureFixtures()
const seconds = (performance.now() - started) / 1000

const pad = (value: string | number, width: number): string => String(value).padEnd(width)
const padStart = (value: string | number, width: number): string => String(value).padStart(width)
const recallText = (recall: number, total: number): string => (total === 0 ? "-" : recall.toFixed(4))
const mark = (ok: boolean): string => (ok ? "" : "  < goal")

const lines: Array<string> = []
lines.push(`Redaction recall (${PER_KIND} generated per kind; gitleaks kinds with 5+ samples held to ${RECALL})`, "")
lines.push(`${pad("kind", 16)}${padStart("generated", 10)}${padStart("caught", 8)}${padStart("recall", 9)}   ${padStart("gitleaks", 8)}${padStart("caught", 8)}${padStart("recall", 9)}`)
for (const row of generated) {
  const leaks = gitleaks.find((candidate) => candidate.kind === row.kind)
  const leaksText = leaks === undefined ? `${padStart(0, 8)}${padStart("-", 8)}${padStart("-", 9)}` : `${padStart(leaks.total, 8)}${padStart(leaks.caught, 8)}${padStart(recallText(leaks.recall, leaks.total), 9)}`
  const ok = row.recall >= RECALL && (leaks === undefined || leaks.total < 5 || leaks.recall >= RECALL)
  lines.push(`${pad(row.kind, 16)}${padStart(row.total, 10)}${padStart(row.caught, 8)}${padStart(recallText(row.recall, row.total), 9)}   ${leaksText}${mark(ok)}`)
}
lines.push("", `${pad("negatives", 22)}${padStart("values", 8)}${padStart("redactions", 12)}`)
for (const row of negatives) {
  lines.push(`${pad(row.negativeClass, 22)}${padStart(row.total, 8)}${padStart(row.redactions, 12)}${row.redactions === 0 ? "" : `  ${JSON.stringify(row.counts)}`}`)
}
lines.push(
  "",
  `fixtures: ${fixtures.files} files, ${(fixtures.bytes / 1024).toFixed(0)} KB of string values, ${fixtures.redactions} redactions, ` +
    `${fixtures.per100Kb.toFixed(2)} per 100 KB${mark(fixtures.per100Kb <= 1)}  ${JSON.stringify(fixtures.counts)}`
)
const flagged = gitleaksFalsePositives.filter((item) => item.output !== item.text)
lines.push(`gitleaks' false-positive examples redacted: ${flagged.length}/${gitleaksFalsePositives.length}`)

const misses = [...generated.map((row) => ({ source: "generated", ...row })), ...gitleaks.map((row) => ({ source: "gitleaks", ...row }))].filter((row) => row.misses.length > 0)
if (misses.length > 0) {
  lines.push("", "Misses (up to 5 per kind):")
  for (const row of misses) {
    for (const miss of row.misses) lines.push(`  ${row.source} ${row.kind}: ${JSON.stringify(miss.text).slice(0, 160)}\n      => ${JSON.stringify(miss.output).slice(0, 160)}`)
  }
}
if (fixtures.found.length > 0) {
  lines.push("", "Redacted in the fixtures:")
  for (const item of fixtures.found) lines.push(`  ${item.file}: ${item.kind} ${JSON.stringify(item.original).slice(0, 120)}`)
}
lines.push("", `(${seconds.toFixed(1)} s)`)
process.stdout.write(`${lines.join("\n")}\n`)

const repo = join(import.meta.dirname, "..")
const report = {
  started: new Date().toISOString(),
  perKind: PER_KIND,
  goal: { recall: RECALL, negativeRedactions: 0, fixtureRedactionsPer100Kb: 1 },
  generated: generated.map(({ caught, kind, misses, recall, total }) => ({ kind, total, caught, recall, misses })),
  gitleaks: gitleaks.map(({ caught, kind, misses, recall, rules, total }) => ({ kind, total, caught, recall, rules, misses })),
  gitleaksFalsePositives: flagged,
  negatives,
  fixtures,
  seconds
}
mkdirSync(join(repo, "bench", "results"), { recursive: true })
writeFileSync(join(repo, "bench", "results", "redaction-recall-latest.json"), `${JSON.stringify(report, null, 2)}\n`)
