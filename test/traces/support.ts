/**
 * Helpers shared by the trace importer tests: fixture paths and loading (JSON Lines read as the
 * array of their records, as the importers receive them), the fixtures of a format folder, an
 * importer's read-and-expect helpers and its "never throws" property, the counts tables and the
 * duplicate-event check, detection of a format's fixtures both ways, the event summaries the
 * assertions compare, small readers for records inside the fixtures, and the conversation the
 * otel / openinference fixtures were recorded from.
 */
import { expect, it } from "@effect/vitest"
import { Either, Predicate } from "effect"
import fc from "fast-check"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Importer } from "../../src/Traces/Importer.js"
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"
import { detectFormat, IMPORTERS } from "../../src/Traces/Normalize.js"

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

/** The fixture folders, one per format. */
export const fixtureFolders = (): Array<string> =>
  readdirSync(FIXTURES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)

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

// ---------------------------------------------------------------------------------------------
// Counts, duplicates, detection

/** What a counts table states exactly, per trace. */
export const countsOf = (trace: NormalizedTrace) => {
  const of = (kind: TraceEvent["kind"]) => trace.events.filter((event) => event.kind === kind)
  return {
    messages: of("message").length,
    toolCalls: of("tool_call").length,
    /** Tool calls whose arguments are neither empty nor `{}`. */
    withArguments: of("tool_call").filter((event) => event.content.length > 0 && event.content !== "{}").length,
    toolResults: of("tool_result").length,
    errors: of("error").length,
    agents: trace.agents.length,
    handoffs: of("handoff").length,
    thoughts: of("thought").length,
    skipped: trace.skipped
  }
}
export type Counts = ReturnType<typeof countsOf>

/** Per fixture of a format's folder, the ids of the traces it reads as and each one's counts. */
export type CountsTable = ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, Counts]>]>

/** The events that repeat an earlier one's actor, kind, content and source (as JSON keys): none expected. */
const duplicateEvents = (trace: NormalizedTrace): Array<string> => {
  const seen = new Set<string>()
  const repeated: Array<string> = []
  for (const event of trace.events) {
    const key = JSON.stringify([event.actor, event.kind, event.content, event.source])
    if (seen.has(key)) repeated.push(key)
    seen.add(key)
  }
  return repeated
}

/** No two events of the trace share actor, kind, content and source. */
export const expectNoDuplicates = (trace: NormalizedTrace): void => {
  expect(duplicateEvents(trace)).toEqual([])
}

/**
 * A counts table of an importer whose fixture folder bears its format's name: it names every JSON
 * fixture of the folder, and each reads as traces with exactly these ids and counts, none with
 * duplicate events.
 */
export const expectCountsTable = (importer: Importer, table: CountsTable): void => {
  const { readAll } = readersOf(importer)
  expect(table.map(([name]) => name).sort()).toEqual(fixtureNames(importer.format).sort())
  for (const [name, expected] of table) {
    const traces = readAll(fixture(join(importer.format, name)))
    expect([name, traces.map((trace) => [trace.id, countsOf(trace)])]).toEqual([name, expected])
    traces.forEach(expectNoDuplicates)
  }
}

/** The formats whose importers claim a body. */
const claimants = (body: unknown): Array<string> => IMPORTERS.filter((importer) => importer.detect(body)).map((importer) => importer.format)

/**
 * Detection of a format's own fixtures (its folder bears the format's name): each is claimed by its
 * importer, given to it by auto detection, and claimed by no other importer.
 */
const expectClaimsOwnFixtures = (importer: Importer): void => {
  const family = importer.format
  const own = loadFixtures(family)
  expect(own.length).toBeGreaterThan(0)
  for (const [name, body] of own) {
    expect([name, importer.detect(body), detectFormat(body)?.format, claimants(body)]).toEqual([name, true, family, [family]])
  }
}

/** The importer claims no fixture of another format's folder. */
const expectClaimsNoOtherFixture = (importer: Importer): void => {
  for (const folder of fixtureFolders().filter((folder) => folder !== importer.format)) {
    for (const [name, body] of loadFixtures(folder)) expect([folder, name, importer.detect(body)]).toEqual([folder, name, false])
  }
}

/** The importer claims none of these look-alike bodies. */
const expectLeavesAlone = (importer: Importer, bodies: ReadonlyArray<unknown>): void => {
  for (const body of bodies) expect([body, importer.detect(body)]).toEqual([body, false])
}

/**
 * The detection tests of an importer whose fixture folder bears its format's name, inside the
 * caller's `describe`: its fixtures are claimed by it, given to it by auto detection and claimed by
 * no other importer; it claims no other folder's fixture and none of the look-alike bodies.
 */
export const detectionBothWays = (importer: Importer, lookAlikes: ReadonlyArray<unknown>): void => {
  it("recognises its fixtures, which auto detection gives to it and no other importer claims", () => {
    expectClaimsOwnFixtures(importer)
  })

  it("claims no other format's fixture, and leaves look-alikes alone", () => {
    expectClaimsNoOtherFixture(importer)
    expectLeavesAlone(importer, lookAlikes)
  })
}

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
