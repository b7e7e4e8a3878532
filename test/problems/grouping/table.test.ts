/**
 * The grouping-quality data and its machinery (labelled.ts, generator.ts), checked without any
 * fingerprint code: the labelled table is true to the fixtures and the catalogue, the distinct
 * pairs are real, the generator is deterministic, keeps quotes verbatim and really varies runs,
 * and B-cubed gives the known numbers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { PlaybooksFile } from "../../../src/Catalogue/Resources.js"
import type { NormalizedTrace } from "../../../src/Traces/Model.js"
import { baseTrace, bcubed, runsOfTable, variations } from "./generator.js"
import { type BaseFailure, DISTINCT_PAIRS, LABELLED, normalizedFixture } from "./labelled.js"

const PATTERNS = join(import.meta.dirname, "..", "..", "..", "patterns")
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"))
const slugs: ReadonlyArray<string> = Schema.decodeUnknownSync(Schema.Array(Schema.String))(readJson(join(PATTERNS, "catalogue.json")))
/** A pattern's playbook keys: `key_parts` joined by "." (as src/Catalogue/CatalogueLoader.ts does). */
const playbookKeys = (slug: string): ReadonlyArray<string> =>
  Schema.decodeUnknownSync(PlaybooksFile)(readJson(join(PATTERNS, slug, "playbooks.json"))).map((entry) => entry.key_parts.join("."))

const byLabel = new Map(LABELLED.map((base) => [base.label, base]))
const labelled = (label: string): BaseFailure => byLabel.get(label) ?? expect.fail(`no base failure ${label}`)
const eventContent = (trace: NormalizedTrace, index: number): string => trace.events[index]?.content ?? expect.fail(`no event ${index}`)

describe("grouping table: labelled base failures", () => {
  it("has at least 30 base failures with distinct labels", () => {
    expect(LABELLED.length).toBeGreaterThanOrEqual(30)
    expect(byLabel.size).toBe(LABELLED.length)
  })

  it("each fixture normalizes, its event exists and quotes verbatim", () => {
    for (const base of LABELLED) {
      const read = normalizedFixture(base.fixture)
      if (Either.isLeft(read)) return expect.fail(read.left)
      const event = read.right.events[base.event]
      expect([base.label, event !== undefined]).toEqual([base.label, true])
      expect([base.label, base.quote.length > 0, event?.content.includes(base.quote)]).toEqual([base.label, true, true])
    }
  })

  it("each pattern is in the catalogue and each playbook is one of its pattern's", () => {
    for (const base of LABELLED) {
      expect([base.label, slugs.includes(base.pattern)]).toEqual([base.label, true])
      if (base.playbook !== null) expect([base.label, playbookKeys(base.pattern)]).toEqual([base.label, expect.arrayContaining([base.playbook])])
    }
  })

  it("has at least 50 distinct pairs of different labels sharing pattern and playbook", () => {
    expect(DISTINCT_PAIRS.length).toBeGreaterThanOrEqual(50)
    expect(new Set(DISTINCT_PAIRS.map((pair) => JSON.stringify([...pair].sort()))).size).toBe(DISTINCT_PAIRS.length)
    for (const [a, b] of DISTINCT_PAIRS) {
      expect(a).not.toBe(b)
      const first = labelled(a)
      const second = labelled(b)
      expect([a, b, second.pattern, second.playbook]).toEqual([a, b, first.pattern, first.playbook])
      expect(second.title.toLowerCase()).not.toBe(first.title.toLowerCase())
    }
  })
})

describe("grouping table: the variation generator", () => {
  it("is deterministic: the same seed gives the same variations, another seed others", () => {
    for (const base of LABELLED) {
      const trace = baseTrace(base)
      expect(JSON.stringify(variations(base, trace, 4, 7))).toBe(JSON.stringify(variations(base, trace, 4, 7)))
      expect(JSON.stringify(variations(base, trace, 4, 8))).not.toBe(JSON.stringify(variations(base, trace, 4, 7)))
    }
  })

  it("keeps each quote verbatim in the varied event, and pattern, playbook, severity and the event as the base's", () => {
    for (const base of LABELLED) {
      for (const run of variations(base, baseTrace(base), 20, 11)) {
        const [evidence] = run.finding.evidence
        if (evidence === undefined) return expect.fail("no evidence")
        expect(evidence.event).toBe(base.event)
        expect([base.label, evidence.quote.length > 0, eventContent(run.trace, evidence.event).includes(evidence.quote)]).toEqual([base.label, true, true])
        expect(run.trace.events[evidence.event]?.kind).toBe(baseTrace(base).events[base.event]?.kind)
        expect([run.label, run.finding.pattern, run.finding.playbook, run.finding.severity]).toEqual([base.label, base.pattern, base.playbook, base.severity])
      }
    }
  })

  it("really varies runs: every trace differs, and most titles, agents' names and contents differ from the base; tools keep their names", () => {
    let runs = 0
    let titles = 0
    let named = 0
    let renamed = 0
    let contents = 0
    for (const base of LABELLED) {
      const trace = baseTrace(base)
      // agents are renamed; tools keep their names (part of the failure, DECISIONS §19)
      const names = JSON.stringify([trace.agents, trace.events.map((event) => (event.role === "agent" ? event.actor : ""))])
      const tools = JSON.stringify(trace.events.map((event) => event.tool ?? ""))
      const hasNames = trace.agents.some((agent) => !["assistant", "agent"].includes(agent))
      for (const run of variations(base, trace, 20, 3)) {
        runs++
        expect(JSON.stringify(run.trace)).not.toBe(JSON.stringify(trace))
        if (run.finding.title !== base.title) titles++
        if (JSON.stringify(run.trace.events.map((event) => event.content)) !== JSON.stringify(trace.events.map((event) => event.content))) contents++
        expect(JSON.stringify(run.trace.events.map((event) => event.tool ?? ""))).toBe(tools)
        if (hasNames) {
          named++
          if (JSON.stringify([run.trace.agents, run.trace.events.map((event) => (event.role === "agent" ? event.actor : ""))]) !== names) renamed++
        }
      }
    }
    expect(titles / runs).toBeGreaterThan(0.8)
    expect(contents / runs).toBeGreaterThan(0.8)
    expect(renamed / named).toBeGreaterThan(0.8)
  })

  it("renames consistently: a renamed agent or tool is gone from the agents, actors, tools and title", () => {
    const base = labelled("refund-timeout-no-retry")
    const trace = baseTrace(base)
    for (const run of variations(base, trace, 20, 5)) {
      const agents = new Set(run.trace.agents)
      const tools = new Set(run.trace.events.flatMap((event) => (event.tool === undefined ? [] : [event.tool])))
      if (!agents.has("billing_agent")) {
        expect(run.trace.events.some((event) => event.actor === "billing_agent" || event.to === "billing_agent")).toBe(false)
        expect(run.finding.title.toLowerCase()).not.toContain("billing_agent")
      }
      if (!tools.has("refund_charge")) {
        expect(run.trace.events.some((event) => event.actor === "refund_charge")).toBe(false)
        expect(run.finding.title.toLowerCase()).not.toContain("refund_charge")
      }
      expect(run.trace.events.map((event) => event.kind)).toEqual(trace.events.map((event) => event.kind))
    }
  })

  it("varies tool-call arguments and quoted values", () => {
    const base = labelled("weather-timeout-silently-substituted")
    const trace = baseTrace(base)
    const runs = variations(base, trace, 20, 9)
    const callsOf = (events: NormalizedTrace["events"]) => JSON.stringify(events.filter((event) => event.kind === "tool_call").map((event) => event.content))
    expect(runs.filter((run) => callsOf(run.trace.events) !== callsOf(trace.events)).length).toBeGreaterThan(15)
    expect(runs.filter((run) => !run.finding.title.includes("Berlin")).length).toBeGreaterThan(15)
  })

  it("runsOfTable gives at least 300 runs with every label at least 5 times", () => {
    const runs = runsOfTable()
    expect(runs.length).toBeGreaterThanOrEqual(300)
    const perLabel = new Map<string, number>()
    for (const run of runs) perLabel.set(run.label, (perLabel.get(run.label) ?? 0) + 1)
    expect([...perLabel.keys()].sort()).toEqual(LABELLED.map((base) => base.label).sort())
    for (const [label, count] of perLabel) expect([label, count >= 5]).toEqual([label, true])
    expect(JSON.stringify(runsOfTable(300, 2))).toBe(JSON.stringify(runsOfTable(300, 2)))
  })
})

describe("grouping table: B-cubed", () => {
  const items = (pairs: ReadonlyArray<readonly [string, string]>) => pairs.map(([label, cluster]) => ({ label, cluster }))

  it("perfect clustering: precision 1, recall 1", () => {
    expect(bcubed(items([["a", "1"], ["a", "1"], ["b", "2"], ["c", "3"], ["c", "3"]]))).toEqual({ precision: 1, recall: 1 })
  })

  it("everything in one cluster: precision below 1, recall 1", () => {
    const score = bcubed(items([["a", "x"], ["a", "x"], ["b", "x"], ["c", "x"]]))
    expect(score.recall).toBe(1)
    // (2/4 + 2/4 + 1/4 + 1/4) / 4
    expect(score.precision).toBeCloseTo(0.375, 12)
  })

  it("singletons: precision 1, recall below 1", () => {
    const score = bcubed(items([["a", "1"], ["a", "2"], ["a", "3"], ["b", "4"]]))
    expect(score.precision).toBe(1)
    // (1/3 + 1/3 + 1/3 + 1) / 4
    expect(score.recall).toBeCloseTo(0.5, 12)
  })

  it("a hand-computed mixed case", () => {
    // Cluster 1: a a b; cluster 2: b c; labels a×2, b×2, c×1.
    // Precision: a 2/3, a 2/3, b 1/3, b 1/2, c 1/2 → 8/3 / 5 = 8/15.
    // Recall: a 2/2, a 2/2, b 1/2, b 1/2, c 1/1 → 4 / 5.
    const score = bcubed(items([["a", "1"], ["a", "1"], ["b", "1"], ["b", "2"], ["c", "2"]]))
    expect(score.precision).toBeCloseTo(8 / 15, 12)
    expect(score.recall).toBeCloseTo(4 / 5, 12)
  })

  it("no items: 1 and 1", () => {
    expect(bcubed([])).toEqual({ precision: 1, recall: 1 })
  })
})
