/**
 * A format's kit (issue 48): its carrier fixtures, read into what the injections need, and the
 * writer that puts an injection into a copy of a carrier with the format's own fields. One kit
 * per format (or per shape of a format: Chat Completions and the Agents SDK are both `openai`).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { TraceFormat } from "../../../src/Traces/Model.js"
import type { Rng } from "../Random.js"
import type { Injection } from "../Scenario.js"

/** The repository's trace fixtures: every carrier is one of them. */
export const FIXTURES = join(import.meta.dirname, "..", "..", "..", "test", "fixtures", "traces")

/** What the injections need to know of a carrier. */
export interface CarrierFacts {
  /** Tools the carrier declares (an unknown tool must be none of them). */
  readonly tools: ReadonlyArray<string>
  /** Its agents, the one that answers first. */
  readonly agents: ReadonlyArray<string>
  /** Its final answer. */
  readonly answer: string
}

export interface Carrier {
  /** The fixture, relative to test/fixtures/traces. */
  readonly path: string
  readonly facts: CarrierFacts
  /** The fixture as the kit reads it (trimmed to one successful run where the file holds more). */
  readonly body: unknown
}

export interface Kit {
  /** The kit's name, as items name it (`openai-chat`, `agents-sdk`). */
  readonly name: string
  readonly format: TraceFormat
  /** The provider whose errors this kit's model calls answer with. */
  readonly provider: "openai" | "anthropic"
  readonly carriers: ReadonlyArray<Carrier>
  readonly inject: (carrier: Carrier, injection: Injection, rng: Rng) => unknown
  /** The words the framework stops a run with at its turn limit (kits whose framework has one). */
  readonly turnLimitText?: (limit: number) => string
}

/** A fixture's JSON (JSON Lines: the list of its records). */
export const readFixture = (path: string): unknown => {
  const text = readFileSync(join(FIXTURES, path), "utf8")
  if (!path.endsWith(".jsonl")) return JSON.parse(text)
  return text.split("\n").filter((line) => line.trim().length > 0).map((line): unknown => JSON.parse(line))
}
