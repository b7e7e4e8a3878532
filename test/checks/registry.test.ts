/**
 * The registry of checks against what DECISIONS §23 asks of each entry: stable snake_case ids, the
 * ids §23 names, one-sentence rules, playbook keys that exist in the catalogue, thresholds whose
 * defaults respect their minimums, severities medium or above unless docs/checks.md lists the
 * exception, and for each check its own test file and its section in docs/checks.md.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { definitions } from "../../patterns/index.js"
import { loadCatalogue } from "../../src/Catalogue/CatalogueLoader.js"
import { severityRank } from "../../src/Catalogue/Severity.js"
import { CHECK_IDS, CHECKS } from "../../src/Checks/Registry.js"

const root = join(import.meta.dirname, "..", "..")
const docs = readFileSync(join(root, "docs", "checks.md"), "utf8")
/** docs/checks.md's `## ` sections by heading. */
const sections = new Map(
  docs.split(/^## /m).slice(1).map((section): [string, string] => {
    const newline = section.indexOf("\n")
    return [section.slice(0, newline).trim(), section.slice(newline + 1)]
  })
)
const exceptions = new Set([...(sections.get("Exceptions") ?? "").matchAll(/`([a-z0-9_]+)`/g)].map((match) => match[1]))
const playbookKeys = new Set(
  Effect.runSync(loadCatalogue(join(root, "patterns"), definitions.map((definition) => definition.code))).flatMap((pattern) =>
    pattern.playbooks.map((playbook) => `${pattern.code.slug}/${playbook.key}`)
  )
)

/** The ids DECISIONS §23 says the registry holds at least. */
const REQUIRED = [
  "tool_error_unrecovered",
  "success_claim_after_error",
  "repeated_call_loop",
  "unanswered_tool_call",
  "unknown_tool",
  "invalid_tool_arguments",
  "truncated_output",
  "empty_final_answer",
  "turn_limit_reached",
  "context_overflow",
  "provider_error",
  "handoff_unanswered",
  "handoff_ping_pong"
]

describe("the checks' registry", () => {
  it("holds every id §23 names, each once, in snake_case", () => {
    expect(CHECK_IDS).toEqual(expect.arrayContaining(REQUIRED))
    expect(new Set(CHECK_IDS).size).toBe(CHECK_IDS.length)
    for (const id of CHECK_IDS) expect(id).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/)
  })

  describe.each(CHECKS.map((check) => [check.id, check] as const))("%s", (id, check) => {
    it("states its rule in one sentence and names a title", () => {
      expect(check.title.length).toBeGreaterThan(10)
      expect(check.rule).toMatch(/\.$/)
      expect(check.rule).not.toMatch(/[.!?]\s+[A-Z]/)
    })

    it("maps to playbooks that exist in the catalogue, and names its fingerprint's parts once each", () => {
      expect(check.playbooks.length).toBeGreaterThan(0)
      for (const key of check.playbooks) expect(playbookKeys, key).toContain(key)
      expect(check.fingerprint.length).toBeGreaterThan(0)
      expect(new Set(check.fingerprint).size).toBe(check.fingerprint.length)
    })

    it("is medium or above, unless docs/checks.md lists it as an exception", () => {
      if (exceptions.has(id)) expect(severityRank(check.severity)).toBeLessThan(severityRank("medium"))
      else expect(severityRank(check.severity)).toBeGreaterThanOrEqual(severityRank("medium"))
    })

    it("gives each threshold a whole default at or above its minimum", () => {
      for (const [name, threshold] of Object.entries(check.thresholds ?? {})) {
        expect(name).toMatch(/^[a-z]+(?:_[a-z]+)*$/)
        expect(Number.isInteger(threshold.default) && Number.isInteger(threshold.minimum), name).toBe(true)
        expect(threshold.default, name).toBeGreaterThanOrEqual(threshold.minimum)
        expect(threshold.description.length).toBeGreaterThan(10)
      }
    })

    it("has its own test file", () => {
      expect(existsSync(join(import.meta.dirname, `${id.replace(/_/g, "-")}.test.ts`))).toBe(true)
    })

    it("has its section in docs/checks.md, naming what it reads, its severity, playbooks and thresholds", () => {
      const section = sections.get(`\`${id}\``)
      expect(section, `docs/checks.md has no "## \`${id}\`"`).toBeDefined()
      expect(section).toContain(`**Reads** ${check.reads}`)
      expect(section).toContain(`**Severity** ${check.severity}`)
      for (const key of check.playbooks) expect(section).toContain(`\`${key}\``)
      for (const name of Object.keys(check.thresholds ?? {})) expect(section).toContain(`\`${name}\``)
      expect(section).toContain("**Measured precision and recall:**")
    })
  })

  it("lists in docs/checks.md exactly the registry's checks, in its order", () => {
    const documented = [...sections.keys()].flatMap((heading) => /^`([a-z0-9_]+)`$/.exec(heading)?.[1] ?? [])
    expect(documented).toEqual(CHECK_IDS)
  })
})
