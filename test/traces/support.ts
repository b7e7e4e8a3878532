/**
 * Helpers shared by the trace importer tests: fixture paths and loading (JSON Lines read as the
 * array of their records, as the importers receive them), the fixtures of a format folder, an
 * importer's read-and-expect helpers and its "never throws" property, the event summaries the
 * assertions compare, small readers for records inside the fixtures, and the conversation the
 * otel / openinference fixtures were recorded from.
 */
import { expect } from "@effect/vitest"
import { Either, Predicate } from "effect"
import fc from "fast-check"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Importer } from "../../src/Traces/Importer.js"
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"

export type Rec = Readonly<Record<string, unknown>>

// ---------------------------------------------------------------------------------------------
// Fixtures

/** test/fixtures/traces: one folder per format. */
const FIXTURES = join(import.meta.dirname, "..", "fixtures", "traces")

/** A fixture's text; `path` is under test/fixtures/traces (`otel/openai-chat-agent.otlp.json`). */
export const fixtureText = (path: string): string => readFileSync(join(FIXTURES, path), "utf8")

/** JSON Lines as the array of their records (blank lines left out). */
export const jsonLines = (text: string): Array<unknown> =>
  text
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line): unknown => JSON.parse(line))

/** A fixture parsed: `.jsonl` as the array of its records, anything else as JSON. */
export const fixture = (path: string): unknown => {
  const raw = fixtureText(path)
  return path.endsWith(".jsonl") ? jsonLines(raw) : JSON.parse(raw)
}

/** The fixture loader of one format folder: `fixtureIn("otel")("spans.json")`. */
export const fixtureIn =
  (folder: string) =>
  (name: string): unknown =>
    fixture(join(folder, name))

/** The files of a format folder with one of these endings (its README left out). */
export const fixtureNames = (folder: string, endings: ReadonlyArray<string> = [".json"]): Array<string> =>
  readdirSync(join(FIXTURES, folder)).filter((name) => endings.some((ending) => name.endsWith(ending)))

/** Every body of a format folder (`.json`, `.traj`, `.jsonl`), parsed, with its file name. */
export const loadFixtures = (folder: string): Array<[string, unknown]> =>
  fixtureNames(folder, [".json", ".traj", ".jsonl"]).map((name): [string, unknown] => [name, fixture(join(folder, name))])

// ---------------------------------------------------------------------------------------------
// Reading

/** An importer's `read`, expecting the traces (`readAll`), exactly one trace (`readOne`) or a Left (`failure`). */
export const readersOf = (importer: Importer) => {
  const readAll = (body: unknown): ReadonlyArray<NormalizedTrace> => {
    const result = importer.read(body)
    if (Either.isLeft(result)) return expect.fail(result.left)
    return result.right
  }
  const readOne = (body: unknown): NormalizedTrace => {
    const traces = readAll(body)
    expect(traces).toHaveLength(1)
    const [trace] = traces
    return trace ?? expect.fail("no trace")
  }
  const failure = (body: unknown): string => {
    const result = importer.read(body)
    if (Either.isRight(result)) return expect.fail(`expected a Left, got ${result.right.length} trace(s)`)
    return result.left
  }
  return { readAll, readOne, failure }
}

/**
 * Property: `detect` and `read` never throw on any JSON value (300 runs); with `nonEmptyTraces`,
 * every trace read also has events.
 */
export const neverThrowsOnJson = (importer: Importer, options: { readonly nonEmptyTraces?: boolean } = {}): void =>
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      importer.detect(value)
      const result = importer.read(value)
      if (options.nonEmptyTraces === true && Either.isRight(result)) for (const trace of result.right) expect(trace.events.length).toBeGreaterThan(0)
    }),
    { numRuns: 300 }
  )

/** actor, role, kind, tool, content, source: what most event assertions compare. */
export const brief = (event: TraceEvent) => [event.actor, event.role, event.kind, event.tool ?? "", event.content, event.source]

/** actor, kind, tool, content: what the `anthropic` and `openai` assertions compare. */
export const shortBrief = (event: TraceEvent) => [event.actor, event.kind, event.tool ?? "", event.content]

// ---------------------------------------------------------------------------------------------
// Records inside fixtures

/** The objects of a list (anything else: none). */
export const list = (value: unknown): ReadonlyArray<Rec> => (Array.isArray(value) ? value.filter(Predicate.isRecord) : [])

/** A record's field when it is an object. */
export const sub = (record: Rec | undefined, key: string): Rec | undefined => {
  const value = record === undefined ? undefined : record[key]
  return Predicate.isRecord(value) ? value : undefined
}

/** A string, or the test fails. */
export const text = (value: unknown): string => (typeof value === "string" ? value : expect.fail(`expected a string, got ${JSON.stringify(value)}`))

// ---------------------------------------------------------------------------------------------
// The weather agent run scripts/record-trace-fixtures/otel.mjs records (otel and openinference)

export const SYSTEM = "You are a weather assistant. Use get_weather for current conditions; answer in one sentence."
export const QUESTION = "What's the weather in Paris and in London? Should I take an umbrella?"
export const PARIS = "{\"city\":\"Paris\",\"temperature_c\":18,\"conditions\":\"sunny\"}"
export const LONDON = "{\"city\":\"London\",\"temperature_c\":11,\"conditions\":\"light rain\"}"
export const ANSWER = "Paris is sunny at 18°C, London has light rain at 11°C: take an umbrella for London."
export const NOT_FOUND = "404 The model `gpt-4o-mini-typo` does not exist or you do not have access to it."
