/**
 * The labelled check set and `svc eval --method checks` (issue 48, DECISIONS §23 "Measured, not
 * asserted", docs/eval.md "Checks"): the generator (eval/inject/) is deterministic by seed, covers
 * every check in at least two formats (six across the set), and labels each item with a source its
 * trace really has; the real `svc` binary scores a small set in this process and against a
 * service, alike; and the quality bar on the set of seed 1, 20 items per (check, format): per check
 * precision ≥ 0.95, recall ≥ 0.9, localisation ≥ 0.9, and at most 5% of the successful fixtures
 * flagged at medium or above. The bar fails, naming the items, for as long as a check misses it.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type CheckItem, generate, normalizedOf } from "../../eval/inject/Generate.js"
import { INJECTORS } from "../../eval/inject/Injectors.js"
import { CHECK_IDS } from "../../eval/inject/Scenario.js"
import { SUCCESSFUL } from "../../eval/inject/successful.js"
import { itemOf } from "../../src/Surfaces/Cli/Eval/Dataset.js"
import { svc } from "../cli/support.js"
import { type RunningService, startService } from "../support/Service.js"

const setFile = (items: ReadonlyArray<unknown>) => {
  const path = join(mkdtempSync(join(tmpdir(), "svc-checks-")), "checks.jsonl")
  writeFileSync(path, `${items.map((item) => JSON.stringify(item)).join("\n")}\n`)
  return path
}

const Score = Schema.Struct({
  expected: Schema.Number,
  precision: Schema.NullOr(Schema.Number),
  recall: Schema.NullOr(Schema.Number),
  localisation: Schema.NullOr(Schema.Number),
  missed: Schema.Array(Schema.Struct({ item: Schema.String, expected: Schema.String, fired: Schema.Array(Schema.String) })),
  false_alarms: Schema.Array(Schema.Struct({ item: Schema.String, expected: Schema.String, fired: Schema.Array(Schema.String) }))
})
const Flagged = Schema.Struct({ n: Schema.Number, flagged: Schema.Number, share: Schema.NullOr(Schema.Number) })
const Summary = Schema.Struct({
  method: Schema.Literal("checks"),
  n: Schema.Number,
  errors: Schema.Number,
  checks: Schema.Record({ key: Schema.String, value: Score }),
  successful: Schema.NullOr(Flagged),
  outcomes: Schema.Struct({ failed: Flagged, successful: Flagged }),
  items: Schema.Array(Schema.Struct({ id: Schema.NullOr(Schema.String), severity: Schema.String, fired: Schema.Array(Schema.Struct({ check: Schema.String, severity: Schema.String })) }))
})
const summaryOf = (stdout: string) => Schema.decodeUnknownSync(Summary)(JSON.parse(stdout))

describe("the generator of labelled failures", () => {
  it("injects every check of §23 in at least two formats, six formats across the set", () => {
    const formats = new Map<string, Set<string>>()
    for (const { check, kit } of INJECTORS) formats.set(check, (formats.get(check) ?? new Set()).add(kit.format))
    for (const check of CHECK_IDS) expect(formats.get(check)?.size ?? 0, check).toBeGreaterThanOrEqual(2)
    expect(new Set(INJECTORS.map(({ kit }) => kit.format)).size).toBeGreaterThanOrEqual(6)
  })

  it("is deterministic by seed, and the seed varies ids, tools, arguments and positions", () => {
    const first = generate({ seed: 5, per: 3 })
    expect(JSON.stringify(generate({ seed: 5, per: 3 }))).toBe(JSON.stringify(first))
    const other = generate({ seed: 6, per: 3 })
    const injected = (items: ReadonlyArray<CheckItem>) => items.filter((item) => item.split !== "successful")
    const differing = injected(first).filter((item, index) => JSON.stringify(item.trace) !== JSON.stringify(injected(other)[index]?.trace))
    expect(differing.length).toBeGreaterThan(injected(first).length * 0.9)
    // within one injector, three items are three different failures
    for (const { check, kit } of INJECTORS) {
      const traces = first.filter((item) => item.id.startsWith(`${check}/${kit.name}/`)).map((item) => JSON.stringify(item.trace))
      expect(new Set(traces).size, `${check}/${kit.name}`).toBe(3)
    }
  })

  it("labels every item with sources its trace has, as the importer reads it in the item's format; the successful fixtures expect nothing", () => {
    const items = generate({ seed: 11, per: 2 })
    expect(items).toHaveLength(INJECTORS.length * 2 + SUCCESSFUL.length)
    for (const item of items) {
      const sources = new Set(normalizedOf(item.trace, item.format).events.map((event) => event.source))
      if (item.split === "successful") {
        expect(item.expect.checks).toEqual([])
        continue
      }
      expect(item.expect.checks.map((each) => each.check), item.id).toContain(item.split)
      for (const expected of item.expect.checks) {
        expect(sources.has(expected.source), `${item.id}: ${expected.source}`).toBe(true)
        for (const source of expected.sources) expect(sources.has(source), `${item.id}: ${source}`).toBe(true)
      }
      // and `svc eval` reads the line as the labelled item it is
      const read = itemOf(JSON.parse(JSON.stringify(item)), "set.jsonl:1", "set")
      expect(read._tag).toBe("Right")
    }
  })
})

describe("svc eval --method checks, the binary", () => {
  let service: RunningService
  beforeAll(async () => {
    service = await startService({ SVC_LOG_LEVEL: "none" })
  })
  afterAll(async () => {
    await service.close()
  })

  it("prints the per-check table in this process, and the same numbers against a service", async () => {
    const path = setFile(generate({ seed: 3, per: 1 }))
    const table = await svc(["eval", path, "--method", "checks"])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/^svc eval: \d+ items, checks/)
    expect(table.stdout).toMatch(/check\s+expected\s+precision\s+recall\s+localisation/)
    for (const check of CHECK_IDS) expect(table.stdout).toMatch(new RegExp(`\\n${check}\\s+\\d+\\s+`))
    expect(table.stdout).toMatch(/successful split: \d+ of \d+ flagged at medium or above/)
    const local = await svc(["eval", path, "--method", "checks", "--format", "json"])
    const remote = await svc(["eval", path, "--method", "checks", "--format", "json", "--url", service.url])
    expect(remote.code, remote.stderr).toBe(0)
    const [here, there] = [summaryOf(local.stdout), summaryOf(remote.stdout)]
    expect(there.checks).toEqual(here.checks)
    expect(there.successful).toEqual(here.successful)
    expect(here.errors).toBe(0)
    // every item was checked: a --baseline beside --method checks is refused
    const both = await svc(["eval", path, "--method", "checks", "--baseline", "random"])
    expect(both.code).not.toBe(0)
    expect(both.stderr).toContain("--method checks")
  }, 240_000)

  it("scores outcome labels: the share of failed and of successful runs flagged", async () => {
    const items = generate({ seed: 4, per: 1 }).filter((item) => item.split === "provider_error" || item.split === "successful")
    const path = setFile(items.map((item) => ({ ...item, expect: { ...item.expect, outcome: item.split === "successful" ? "successful" : "failed" } })))
    const ran = await svc(["eval", path, "--method", "checks", "--format", "json"])
    expect(ran.code, ran.stderr).toBe(0)
    const summary = summaryOf(ran.stdout)
    expect(summary.outcomes.failed.n).toBe(items.filter((item) => item.split !== "successful").length)
    expect(summary.outcomes.successful.n).toBe(SUCCESSFUL.length)
    const flagged = summary.items.filter((item) => item.fired.some((fired) => ["medium", "high", "critical"].includes(fired.severity))).length
    expect(summary.outcomes.failed.flagged + summary.outcomes.successful.flagged).toBe(flagged)
  }, 240_000)
})

/**
 * Checks still under the bar, each with the floor it must not fall below (what was measured) and
 * why: the bar holds for every other check. docs/eval.md lists the same. A check leaves this table
 * when it meets the bar.
 */
describe("the quality bar (DECISIONS §23, issue 48)", () => {
  it("on seed 1, 20 items per (check, format): per check precision ≥ 0.95, recall ≥ 0.9, localisation ≥ 0.9; ≤ 5% of the successful fixtures flagged", async () => {
    const path = setFile(generate({ seed: 1, per: 20 }))
    const ran = await svc(["eval", path, "--method", "checks", "--format", "json"])
    expect(ran.code, ran.stderr).toBe(0)
    const summary = summaryOf(ran.stdout)
    expect(summary.errors).toBe(0)
    for (const check of CHECK_IDS) {
      const score = summary.checks[check]
      expect(score, check).toBeDefined()
      if (score === undefined) continue
      const misses = score.missed.slice(0, 5).map((miss) => `${miss.item}: expected ${miss.expected}; fired ${miss.fired.join(", ") || "nothing"}`).join("\n  ")
      const alarms = score.false_alarms.slice(0, 5).map((miss) => `${miss.item}: expected ${miss.expected}; fired ${miss.fired.join(", ")}`).join("\n  ")
      expect.soft(score.precision ?? 0, `${check} precision; false alarms:\n  ${alarms}`).toBeGreaterThanOrEqual(0.95)
      expect.soft(score.recall ?? 0, `${check} recall; missed:\n  ${misses}`).toBeGreaterThanOrEqual(0.9)
      expect.soft(score.localisation ?? 0, `${check} localisation; missed:\n  ${misses}`).toBeGreaterThanOrEqual(0.9)
    }
    const flaggedSuccessful = summary.items.filter((item) => item.id?.startsWith("successful/") === true && item.fired.some((fired) => ["medium", "high", "critical"].includes(fired.severity)))
    expect.soft(summary.successful?.share ?? 1, `successful fixtures flagged: ${flaggedSuccessful.map((item) => `${item.id ?? ""} (${item.fired.map((fired) => `${fired.check} ${fired.severity}`).join(", ")})`).join("; ")}`).toBeLessThanOrEqual(0.05)
  }, 600_000)
})
