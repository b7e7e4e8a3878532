/**
 * Redaction measured (DECISIONS §20, the recall issue), with positives from outside the code
 * under test: values generated from the formats' public definitions (generators.ts) and gitleaks'
 * published true positives (test/fixtures/redaction, provenance in its README).
 * - recall ≥ 0.99 per kind, generated and gitleaks (kinds with 5 samples or more);
 * - 10,000 each of commit SHAs, UUIDs, trace and span ids, base64 images, ISO and nanosecond
 *   timestamps, semvers: no redaction at all;
 * - the trace fixtures' string values: at most 1.25 redactions per 100 KB (each one printed, to judge);
 * - idempotent, no two values behind one placeholder, text without secrets left as it is.
 * The figures are printed by `npx tsx bench/redaction-recall.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { PLACEHOLDER } from "../../src/Redaction/Redactor.js"
import { KINDS, NEGATIVE_CLASSES, positives } from "./generators.js"
import { fullPass, gitleaksSamples, measureFixtures, measureGitleaks, measureKind, measureNegatives, type RecallRow } from "./measure.js"

const PER_KIND = 1000
const NEGATIVES = 10_000
const RECALL = 0.99
/** gitleaks kinds with fewer samples are reported, not held to the figure. */
const GITLEAKS_MIN_SAMPLES = 5

const explain = (row: RecallRow): string =>
  `${row.kind}: ${row.caught}/${row.total} caught (${row.recall.toFixed(4)}); missed, for example:\n` +
  row.misses.map((miss) => `  ${JSON.stringify(miss.text).slice(0, 400)}\n  => ${JSON.stringify(miss.output).slice(0, 400)}`).join("\n")

describe("generated positives", () => {
  for (const kind of KINDS) {
    it(`${kind}: recall ≥ ${RECALL}`, () => {
      const row = measureKind(kind, PER_KIND)
      expect(row.total).toBe(PER_KIND)
      expect(row.recall, explain(row)).toBeGreaterThanOrEqual(RECALL)
    })
  }
})

describe("gitleaks' true positives", () => {
  const rows = measureGitleaks()
  const samplesPerKind = new Map<string, number>()
  for (const sample of gitleaksSamples()) samplesPerKind.set(sample.kind, (samplesPerKind.get(sample.kind) ?? 0) + 1)

  it("are all read, in our kinds", () => {
    expect([...samplesPerKind.values()].reduce((sum, n) => sum + n, 0)).toBe(126)
    for (const kind of samplesPerKind.keys()) expect(KINDS).toContain(kind)
    console.log(rows.map((row) => `gitleaks ${row.kind}: ${row.caught}/${row.total} (${row.recall.toFixed(3)})`).join("\n"))
  })

  for (const row of rows.filter((candidate) => candidate.total >= GITLEAKS_MIN_SAMPLES)) {
    it(`${row.kind} (${row.total} samples): recall ≥ ${RECALL}`, () => {
      expect(row.recall, explain(row)).toBeGreaterThanOrEqual(RECALL)
    })
  }
})

describe("negatives: no redaction", () => {
  const rows = measureNegatives(NEGATIVES)
  for (const negativeClass of NEGATIVE_CLASSES) {
    it(`${NEGATIVES} ${negativeClass}s`, () => {
      const row = rows.find((candidate) => candidate.negativeClass === negativeClass)
      expect(row?.total).toBe(NEGATIVES)
      const examples = row?.examples.map((example) => `  ${example.text.slice(0, 200)}\n  => ${example.output.slice(0, 200)}`).join("\n") ?? ""
      expect(row?.counts, `${negativeClass}: redacted ${row?.redactions}, for example:\n${examples}`).toEqual({})
    })
  }
})

describe("the trace fixtures' text", () => {
  // Each redaction printed was judged by eye (2026-11-28): all are real emails, phone numbers, keys
  // (Langfuse's pk-lf- keys in its seed traces) and tokens in the recorded texts, none a false alarm.
  // The bound moved from 1 to 1.25 when the Langfuse LlamaIndex seed trace (two real ones) came in.
  it("at most 1.25 redactions per 100 KB", () => {
    const result = measureFixtures()
    expect(result.files).toBeGreaterThan(50)
    const found = result.found.map((item) => `  ${item.file}: ${item.kind} ${JSON.stringify(item.original).slice(0, 200)}`).join("\n")
    console.log(
      `fixtures: ${result.files} files, ${(result.bytes / 1024).toFixed(0)} KB of strings, ${result.redactions} redactions ` +
        `(${result.per100Kb.toFixed(2)} per 100 KB)${found === "" ? "" : `:\n${found}`}`
    )
    expect(result.per100Kb, `redacted in the fixtures:\n${found}`).toBeLessThanOrEqual(1.25)
  })
})

describe("properties", () => {
  /** Generated positives of every kind, to mix into random text. */
  const samples = KINDS.flatMap((kind) => positives(kind, 20, 99).map((positive) => positive.text))
  const WORDS = ["the", "agent", "called", "search", "tool", "with", "query", "result", "returned", "42", "rows", "in", "0.3s", "retrying", "error:", "timeout", "ok", "user", "asked", "for", "a", "summary", "of", "v1.2.3", "step", "#7", "-", "(done)", "{}", "[]"]
  const mixed = fc
    .array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...samples), fc.constantFrom(...WORDS)), { maxLength: 8 })
    .map((parts) => parts.join(" "))

  it("redaction is idempotent", () => {
    fc.assert(
      fc.property(mixed, (text) => {
        const once = fullPass().text(text)
        expect(fullPass().text(once)).toBe(once)
      }),
      { numRuns: 500 }
    )
  })

  it("two values never share a placeholder within a pass, and one value keeps its own", () => {
    const pass = fullPass()
    const owner = new Map<string, string>()
    // enough values of one kind that 6-hex hashes meet (about 1 in 2 above 4,800 values)
    const values = [...positives("aws_key", 6000, 5), ...positives("email", 3000, 5), ...positives("card", 3000, 5)].map((positive) => positive.secrets[0] ?? "")
    for (const value of [...values, ...values.slice(0, 500)]) {
      const output = pass.text(`value ${value} end`)
      const placeholders = output.match(new RegExp(PLACEHOLDER.source, "g")) ?? []
      expect(placeholders, output).toHaveLength(1)
      const placeholder = placeholders[0] ?? ""
      const known = owner.get(placeholder)
      if (known !== undefined) expect(known, `${placeholder} stands for two values`).toBe(value)
      owner.set(placeholder, value)
    }
    expect(owner.size).toBe(new Set(values).size)
  })

  it("placeholders of different values differ (random mixes)", () => {
    // kinds known by their form alone (the others need a name, a scheme or `Bearer` before them)
    const byForm = KINDS.filter((kind) => !["password", "private_key", "bearer", "secret", "slack_webhook"].includes(kind))
    const secrets = byForm.flatMap((kind) => positives(kind, 30, 7).map((positive) => positive.secrets[0] ?? ""))
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...secrets), { minLength: 2, maxLength: 12 }), (values) => {
        const pass = fullPass()
        const outputs = values.map((value) => pass.text(`got ${value} .`))
        const distinct = new Set(outputs)
        expect(distinct.size).toBe(values.length)
      }),
      { numRuns: 300 }
    )
  })

  it("text without secrets is returned unchanged", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WORDS), { maxLength: 40 }).map((words) => words.join(" ")), (text) => {
        expect(fullPass().text(text)).toBe(text)
      }),
      { numRuns: 500 }
    )
    // Arbitrary printable text: without an `@`, since such text does form real e-mail addresses now and
    // then (a CI run drew `-@0.AA`, which is one, and redacted it rightly); with a fixed seed, so the
    // same 2,000 strings are checked on every run
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }).filter((text) => !text.includes("@")), (text) => {
        const pass = fullPass()
        expect(pass.text(text), JSON.stringify(pass.counts())).toBe(text)
      }),
      { numRuns: 2000, seed: 20_261_124 }
    )
  })
})
