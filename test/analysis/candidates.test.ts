/**
 * The checks' findings in each lens's prompt (DECISIONS §23), through the real service and the
 * provider double: a diagnose lists them as candidate events inside the trace block's boundary,
 * numbered as the lens numbers its elements; the static prefix (schema and system blocks) is the
 * same bytes with and without them, so prompt caching keeps working; and they are part of the
 * cache key: the same trace with other checks (SVC_CHECKS_FILE turns them off for one key's scope,
 * the cache shared by SVC_CACHE_SCOPE=global) is another prompt, not a cache hit. Triage reads them
 * too: a loop raises the patterns whose playbooks address loops.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DiagnoseResponse } from "../../src/Contract/DiagnoseReport.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RecordedCall } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { agentTrace } from "../runs/content-traces.js"

const ALICE = "alice-candidates-key-0123456789abcdef"
const BOB = "bob-candidates-key-0123456789abcdef"

const harness = useProviderDouble()

/** A service whose cache is shared by the two keys, and whose checks are off for bob's scope. */
const start = () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-candidates-"))
  const checksFile = join(dir, "checks.yaml")
  writeFileSync(checksFile, "scopes:\n  bob:\n    disabled: [tool_error_unrecovered, success_claim_after_error, repeated_call_loop]\n")
  return harness.start({
    ANTHROPIC_API_KEY: "sk-ant-candidates-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `alice=${ALICE},bob=${BOB}`,
    SVC_CACHE: "memory",
    SVC_CACHE_SCOPE: "global",
    SVC_CHECKS_FILE: checksFile,
    SVC_HOME: dir
  })
}

const REFUND = { question: "Please refund order 4711, it arrived broken.", answer: "I refunded order 4711; the money is back in three days." }
/** The refund fails and the agent says it is done: two checks fire (high). */
const failedRefund = agentTrace({ agent: "support_agent", content: REFUND, tools: [{ name: "issue_refund", args: "{\"order\":\"4711\"}", error: "Refund service unavailable" }] }).body
/** The same run, the refund done: no check fires. */
const doneRefund = agentTrace({ agent: "support_agent", content: REFUND, tools: [{ name: "issue_refund", args: "{\"order\":\"4711\"}", result: "{\"refunded\":true}" }] }).body
/** The same search three times with the same result: a loop (medium). */
const loop = agentTrace({
  agent: "search_agent",
  content: { question: "Find the cheapest flight to Oslo tomorrow.", answer: "The cheapest flight to Oslo costs 89 EUR." },
  tools: [1, 2, 3].map(() => ({ name: "search_flights", args: "{\"to\":\"OSL\"}", result: "{\"flights\":[]}" }))
}).body

const diagnose = async (service: RunningService, key: string, trace: unknown, patterns?: ReadonlyArray<string>) => {
  const response = await fetch(`${service.url}/v1/diagnose`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ trace, mode: "quick", ...(patterns === undefined ? {} : { patterns }) })
  })
  const text = await response.text()
  expect(response.status, text.slice(0, 400)).toBe(200)
  return Schema.decodeUnknownSync(DiagnoseResponse)(JSON.parse(text)).report
}

/** What a call's user message holds inside its trace block's boundary. */
const insideFence = (call: RecordedCall | undefined): string => {
  const text = call?.text ?? ""
  const open = /<trace-data boundary="([0-9a-f]{16})">/.exec(text)
  const boundary = open?.[1]
  if (open === null || boundary === undefined) throw new Error("no trace block in the call")
  const end = text.indexOf(`</trace-data boundary="${boundary}">`)
  expect(end).toBeGreaterThan(open.index)
  return text.slice(open.index, end)
}

describe("the checks' findings as candidate events", () => {
  it("are listed inside the trace block, after an unchanged static prefix, and are part of the cache key", async () => {
    const service = await start()
    const calls = harness.double.calls

    const flagged = await diagnose(service, ALICE, failedRefund, ["lewin"])
    expect(flagged.checks.map((finding) => finding.check).sort()).toEqual(["success_claim_after_error", "tool_error_unrecovered"])
    expect(calls).toHaveLength(1)
    const withCandidates = calls[0]
    const block = insideFence(withCandidates)
    expect(block).toContain("Candidate events (found by the service's deterministic checks, no model):")
    // each candidate cites elements in the lens's own numbering, never the normalized `events[i]`
    const candidateLines = block.split("\n").filter((line) => /^- .*: (tool_error_unrecovered|success_claim_after_error) \(high\): /.test(line))
    expect(candidateLines).toHaveLength(2)
    for (const line of candidateLines) {
      expect(line).toMatch(/^- [a-z_]+\[\d+\]/)
      expect(line).not.toContain("events[")
    }
    expect(withCandidates?.text).toContain("The trace block ends with candidate events")
    expect(withCandidates?.staticPart).not.toContain("Candidate events")

    // a run of the same shape that no check flags: the same static bytes, no candidates
    await diagnose(service, ALICE, doneRefund, ["lewin"])
    expect(calls).toHaveLength(2)
    expect(calls[1]?.staticPart).toBe(withCandidates?.staticPart)
    expect(insideFence(calls[1])).not.toContain("Candidate events")

    // the same trace with the checks off (bob's scope), through the shared cache: another prompt, a model call
    const unflagged = await diagnose(service, BOB, failedRefund, ["lewin"])
    expect(unflagged.checks).toEqual([])
    expect(unflagged.patterns.map((run) => run.cached)).toEqual([false])
    expect(calls).toHaveLength(3)
    expect(insideFence(calls[2])).not.toContain("Candidate events")
    expect(calls[2]?.staticPart).toBe(withCandidates?.staticPart)

    // and the same trace with the same checks again: the cache answers
    const again = await diagnose(service, ALICE, failedRefund, ["lewin"])
    expect(again.patterns.map((run) => run.cached)).toEqual([true])
    expect(calls).toHaveLength(3)
  })

  it("triage: a loop raises the patterns whose playbooks address loops, with the check named in their reasons", async () => {
    const service = await start()
    const flagged = await diagnose(service, ALICE, loop)
    const unflagged = await diagnose(service, BOB, loop)
    expect(flagged.checks.map((finding) => finding.check)).toEqual(["repeated_call_loop"])
    expect(unflagged.checks).toEqual([])
    const scoreOf = (report: typeof flagged, slug: string) => report.triage.find((entry) => entry.pattern === slug)
    for (const slug of ["bias_stack", "yerkes_dodson"]) {
      const raised = scoreOf(flagged, slug)
      const plain = scoreOf(unflagged, slug)
      expect(raised?.reasons.some((reason) => reason.startsWith("the check repeated_call_loop fired (medium)"))).toBe(true)
      expect(plain?.reasons.some((reason) => reason.includes("repeated_call_loop"))).toBe(false)
      expect(raised?.score ?? 0).toBeGreaterThan(plain?.score ?? 1)
    }
  })
})
