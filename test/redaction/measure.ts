/**
 * The recall and false-positive measurements of redaction, shared by `recall.test.ts` (which holds
 * them to the figures) and `bench/redaction-recall.ts` (which prints and records them).
 *
 * - A positive is caught when none of its sensitive substrings is left and a placeholder stands in
 *   the output; secret kinds are redacted with `secrets`, personal data with `secrets,pii`.
 * - gitleaks' true positives (test/fixtures/redaction) are scored the same way, each with the
 *   secret gitleaks names (for a URL's credentials, its password part only).
 * - Negatives and the fixtures' text are redacted with `secrets,pii`: every redaction counts.
 */
import { Predicate } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { makeRedactor, PLACEHOLDER, type RedactionPass } from "../../src/Redaction/Redactor.js"
import type { RedactionClass } from "../../src/Redaction/Rules.js"
import { isPiiKind, type Kind, NEGATIVE_CLASSES, type NegativeClass, negatives, type Positive, positives } from "./generators.js"

const ROOT_KEY = new Uint8Array(32).fill(7)
const SECRETS: ReadonlySet<RedactionClass> = new Set(["secrets"])
const ALL: ReadonlySet<RedactionClass> = new Set(["secrets", "pii"])
const secretsRedactor = makeRedactor(ROOT_KEY, { classes: SECRETS })
const allRedactor = makeRedactor(ROOT_KEY, { classes: ALL })

/** A pass with `secrets` for a secret kind, `secrets,pii` for personal data. */
export const passFor = (kind: string): RedactionPass => (isPiiKind(kind) ? allRedactor : secretsRedactor).forScope("shared").pass()
/** A pass with both classes. */
export const fullPass = (): RedactionPass => allRedactor.forScope("shared").pass()

const hasPlaceholder = (text: string): boolean => new RegExp(PLACEHOLDER.source).test(text)

/** Caught: a placeholder in the output, and none of the sensitive substrings left outside placeholders (a hash may hold `8358`). */
export const isCaught = (secrets: ReadonlyArray<string>, output: string): boolean => {
  if (!hasPlaceholder(output)) return false
  const rest = output.replace(new RegExp(PLACEHOLDER.source, "g"), "\u0000")
  return secrets.every((secret) => !rest.includes(secret))
}

export interface Miss {
  readonly text: string
  readonly output: string
}

export interface RecallRow {
  readonly kind: string
  readonly total: number
  readonly caught: number
  readonly recall: number
  readonly misses: ReadonlyArray<Miss>
}

const MISSES_KEPT = 5

const score = (kind: string, cases: ReadonlyArray<{ readonly text: string; readonly secrets: ReadonlyArray<string> }>): RecallRow => {
  let caught = 0
  const misses: Array<Miss> = []
  for (const { secrets, text } of cases) {
    const output = passFor(kind).text(text)
    if (isCaught(secrets, output)) caught++
    else if (misses.length < MISSES_KEPT) misses.push({ text, output })
  }
  return { kind, total: cases.length, caught, recall: cases.length === 0 ? 0 : caught / cases.length, misses }
}

/** Recall of one kind over `count` generated positives. */
export const measureKind = (kind: Kind, count: number, seed = 1): RecallRow => {
  const cases: ReadonlyArray<Positive> = positives(kind, count, seed)
  return score(kind, cases)
}

// --- gitleaks ----------------------------------------------------------------------------------

export const GITLEAKS_FILE = join(import.meta.dirname, "..", "fixtures", "redaction", "gitleaks-true-positives.json")

export interface GitleaksSample {
  /** Our kind (gitleaks' `url_credentials` is our `password`). */
  readonly kind: string
  readonly rule: string
  readonly text: string
  /** What must be gone: the secret, for URL credentials its password part. */
  readonly secrets: ReadonlyArray<string>
}

const stringField = (record: Record<string, unknown>, key: string): string | undefined => {
  const value = record[key]
  return typeof value === "string" ? value : undefined
}

const gitleaksFile = (): Record<string, unknown> => {
  const parsed: unknown = JSON.parse(readFileSync(GITLEAKS_FILE, "utf8"))
  if (!Predicate.isRecord(parsed)) throw new Error(`${GITLEAKS_FILE}: not an object`)
  return parsed
}

/** gitleaks' true positives, in our kinds. */
export const gitleaksSamples = (): Array<GitleaksSample> => {
  const samples = gitleaksFile()["samples"]
  if (!Array.isArray(samples)) throw new Error(`${GITLEAKS_FILE}: no samples`)
  return samples.flatMap((sample: unknown): Array<GitleaksSample> => {
    if (!Predicate.isRecord(sample)) return []
    const kind = stringField(sample, "kind")
    const text = stringField(sample, "text")
    const rule = stringField(sample, "rule") ?? ""
    const secret = stringField(sample, "secret")
    if (kind === undefined || text === undefined) return []
    if (kind === "url_credentials") {
      const password = secret?.slice(secret.indexOf(":") + 1)
      return [{ kind: "password", rule, text, secrets: password === undefined ? [] : [password] }]
    }
    return [{ kind, rule, text, secrets: secret === undefined ? [] : [secret] }]
  })
}

/** gitleaks' recall per kind of ours. */
export const measureGitleaks = (): Array<RecallRow & { readonly rules: ReadonlyArray<string> }> => {
  const byKind = new Map<string, Array<GitleaksSample>>()
  for (const sample of gitleaksSamples()) byKind.set(sample.kind, [...(byKind.get(sample.kind) ?? []), sample])
  return [...byKind.entries()].map(([kind, samples]) => ({ ...score(kind, samples), rules: [...new Set(samples.map((sample) => sample.rule))] }))
}

/** gitleaks' hand-picked false positives: what redaction makes of them (reported, not held to a figure). */
export const measureGitleaksFalsePositives = (): Array<{ readonly rule: string; readonly text: string; readonly output: string; readonly counts: Readonly<Record<string, number>> }> => {
  const list = gitleaksFile()["false_positives"]
  if (!Array.isArray(list)) return []
  return list.flatMap((item: unknown) => {
    if (!Predicate.isRecord(item)) return []
    const text = stringField(item, "text")
    if (text === undefined) return []
    const pass = fullPass()
    const output = pass.text(text)
    return [{ rule: stringField(item, "rule") ?? "", text, output, counts: pass.counts() }]
  })
}

// --- negatives ---------------------------------------------------------------------------------

export interface NegativeRow {
  readonly negativeClass: NegativeClass
  readonly total: number
  /** Redactions over all the values (should be 0). */
  readonly redactions: number
  readonly counts: Readonly<Record<string, number>>
  readonly examples: ReadonlyArray<Miss>
}

export const measureNegatives = (count: number, seed = 1): Array<NegativeRow> =>
  NEGATIVE_CLASSES.map((negativeClass) => {
    const pass = fullPass()
    const examples: Array<Miss> = []
    for (const text of negatives(negativeClass, count, seed)) {
      const output = pass.text(text)
      if (output !== text && examples.length < MISSES_KEPT) examples.push({ text, output })
    }
    const counts = pass.counts()
    return { negativeClass, total: count, redactions: Object.values(counts).reduce((sum, n) => sum + n, 0), counts, examples }
  })

// --- the fixtures' ordinary text ---------------------------------------------------------------

export const FIXTURES = join(import.meta.dirname, "..", "fixtures", "traces")

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name)
      return statSync(path).isDirectory() ? filesUnder(path) : [path]
    })

/** Every string value (not keys) in a parsed JSON value. */
const stringsIn = (value: unknown, into: Array<string>): void => {
  if (typeof value === "string") into.push(value)
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into)
  else if (Predicate.isRecord(value)) for (const item of Object.values(value)) stringsIn(item, into)
}

const parseOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The string values of a fixture file: JSON (`.json`, `.traj`) whole, JSON Lines line by line. */
export const fixtureStrings = (path: string): Array<string> => {
  const text = readFileSync(path, "utf8")
  const strings: Array<string> = []
  if (path.endsWith(".jsonl")) {
    for (const line of text.split("\n")) if (line.trim() !== "") stringsIn(parseOrUndefined(line), strings)
  } else {
    stringsIn(parseOrUndefined(text), strings)
  }
  return strings
}

export const fixtureFiles = (): Array<string> => filesUnder(FIXTURES).filter((path) => /\.(json|jsonl|traj)$/.test(path))

export interface Found {
  readonly file: string
  readonly kind: string
  readonly original: string
}

/**
 * What was redacted in a string: its text outside the placeholders found again in the original,
 * the gaps between being what each placeholder replaced. A string read as JSON is written back
 * compact, so its pieces may not be found again: then the whole string is reported.
 */
export const redactedParts = (original: string, redacted: string): Array<{ readonly kind: string; readonly original: string }> => {
  const kinds: Array<string> = []
  const literals: Array<string> = []
  let last = 0
  for (const match of redacted.matchAll(new RegExp(PLACEHOLDER.source, "g"))) {
    literals.push(redacted.slice(last, match.index))
    kinds.push(match[1] ?? "?")
    last = match.index + match[0].length
  }
  literals.push(redacted.slice(last))
  const parts: Array<{ kind: string; original: string }> = []
  let at = original.startsWith(literals[0] ?? "") ? (literals[0] ?? "").length : -1
  for (let i = 0; i < kinds.length && at >= 0; i++) {
    const next = literals[i + 1] ?? ""
    const end = i + 1 === kinds.length ? original.length - next.length : next === "" ? -1 : original.indexOf(next, at + 1)
    if (end < at || (i + 1 === kinds.length && !original.endsWith(next))) {
      at = -1
      break
    }
    parts.push({ kind: kinds[i] ?? "?", original: original.slice(at, end) })
    at = end + next.length
  }
  if (at >= 0) return parts
  // read as JSON and written back compact: the strings inside compared one by one
  const before: Array<string> = []
  const after: Array<string> = []
  stringsIn(parseOrUndefined(original), before)
  stringsIn(parseOrUndefined(redacted), after)
  const inner = before.length === after.length && before.length > 0
    ? before.flatMap((value, i) => (after[i] === value ? [] : redactedParts(value, after[i] ?? "")))
    : []
  return inner.length > 0 ? inner : kinds.map((kind) => ({ kind, original: `(in) ${original.slice(0, 300)}` }))
}

export interface FixtureResult {
  readonly files: number
  readonly strings: number
  readonly bytes: number
  readonly redactions: number
  readonly per100Kb: number
  readonly counts: Readonly<Record<string, number>>
  readonly found: ReadonlyArray<Found>
}

/** The fixtures' string values redacted with `secrets,pii`, file by file (a trace's strings together). */
export const measureFixtures = (): FixtureResult => {
  const files = fixtureFiles()
  const found: Array<Found> = []
  const counts: Record<string, number> = {}
  let bytes = 0
  let strings = 0
  for (const file of files) {
    const values = fixtureStrings(file)
    strings += values.length
    for (const value of values) bytes += Buffer.byteLength(value, "utf8")
    const pass = fullPass()
    const redacted = pass.texts(values)
    values.forEach((value, i) => {
      const output = redacted[i] ?? value
      if (output !== value) for (const part of redactedParts(value, output)) found.push({ file: file.slice(FIXTURES.length + 1), ...part })
    })
    for (const [kind, n] of Object.entries(pass.counts())) counts[kind] = (counts[kind] ?? 0) + n
  }
  const redactions = Object.values(counts).reduce((sum, n) => sum + n, 0)
  return { files: files.length, strings, bytes, redactions, per100Kb: bytes === 0 ? 0 : redactions / (bytes / 102_400), counts, found }
}
