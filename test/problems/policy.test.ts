/**
 * The grouping and alerting policy (src/Problems/Grouping.ts) and the alerts' texts
 * (src/Alerts/Texts.ts), pure: what a run's failure does to its problem and which alerts it makes,
 * without a store. The store's tests (test/store/problems.test.ts, test/problems/alerts.test.ts)
 * show the finish writing these decisions.
 */
import { describe, expect, it } from "vitest"
import { problemAlertText, runFailedText } from "../../src/Alerts/Texts.js"
import type { Severity } from "../../src/Catalogue/Severity.js"
import type { ProblemFinding } from "../../src/Problems/Fingerprint.js"
import { mostSevereBy, patternsOf, planJoin } from "../../src/Problems/Grouping.js"
import { DAY_MS, type ProblemRecord } from "../../src/Problems/Model.js"

const NOW = Date.UTC(2026, 10, 28, 12)

const finding = (severity: Severity, over: Partial<ProblemFinding> = {}): ProblemFinding => ({
  fingerprint: "fp-refund",
  pattern: "",
  playbook: null,
  title: "A tool failed and the agent said it succeeded",
  normalizedTitle: "tool failed agent said succeeded",
  severity,
  cites: "tool_result:refund",
  evidence: [{ ref: "event 3", quote: "Your refund is done.", event: 3, actor: "assistant" }],
  check: "tool_error_unrecovered",
  explanation: "refund answered 503; the agent then told the user it was done",
  perspectives: [
    { pattern: "karl-weick-sensemaking", check: null, title: "Plausible story over the signal", severity: "high", explanation: "…", playbook: null, evidence: [] }
  ],
  ...over
})

const problem = (over: Partial<ProblemRecord> = {}): ProblemRecord => ({
  id: "prb_1",
  scope: "shared",
  fingerprint: "fp-refund",
  title: "A tool failed and the agent said it succeeded",
  normalizedTitle: "tool failed agent said succeeded",
  cites: "tool_result:refund",
  playbook: null,
  patterns: [],
  check: "tool_error_unrecovered",
  severity: "high",
  status: "open",
  runCount: 0,
  firstSeen: NOW,
  lastSeen: NOW,
  resolvedAt: null,
  resolvedInVersion: null,
  regressedAt: null,
  mergedInto: null,
  versionsBefore: [],
  regressionAlertedAt: null,
  ...over
})

const run = (over: { readonly version?: string; readonly silent?: boolean; readonly now?: number } = {}) => ({
  now: over.now ?? NOW,
  version: over.version,
  silent: over.silent ?? false
})

describe("planJoin: what a run's failure does to its problem", () => {
  it("a new problem's first run at or above the alert severity makes problem.new; below it, nothing", () => {
    const plan = planJoin(problem(), finding("high"), run(), "high")
    expect(plan.alerts).toEqual(["problem.new"])
    expect(plan.updated.runCount).toBe(1)
    expect(plan.updated.patterns).toEqual(["karl-weick-sensemaking"])
    expect(planJoin(problem({ severity: "medium" }), finding("medium"), run(), "high").alerts).toEqual([])
  })

  it("a run lifting a known problem across the alert severity makes problem.severity, once", () => {
    const lifted = planJoin(problem({ runCount: 4, severity: "medium" }), finding("critical"), run(), "high")
    expect(lifted.alerts).toEqual(["problem.severity"])
    expect(lifted.updated.severity).toBe("critical")
    expect(planJoin(lifted.updated, finding("critical"), run(), "high").alerts).toEqual([])
    // a less severe run never lowers the problem
    expect(planJoin(lifted.updated, finding("low"), run(), "high").updated.severity).toBe("critical")
  })

  it("a resolved problem seen again regresses, and alerts at most once a UTC day", () => {
    const resolved = problem({ runCount: 3, status: "resolved", resolvedAt: NOW - 1000 })
    const first = planJoin(resolved, finding("high"), run(), "high")
    expect(first.updated.status).toBe("regressed")
    expect(first.updated.regressedAt).toBe(NOW)
    expect(first.regressionAlerted).toBe(true)
    expect(first.alerts).toEqual(["problem.regressed"])
    const again = planJoin({ ...resolved, regressionAlertedAt: NOW - DAY_MS + 60_000 }, finding("high"), run(), "high")
    expect(again.updated.status).toBe("regressed")
    expect(again.alerts).toEqual([])
    const nextDay = planJoin({ ...resolved, regressionAlertedAt: NOW - DAY_MS }, finding("high"), run(), "high")
    expect(nextDay.alerts).toEqual(["problem.regressed"])
  })

  it("resolved in a version: only a run on a version it was not seen on before regresses it", () => {
    const resolved = problem({ runCount: 3, status: "resolved", resolvedInVersion: "1.4.0", versionsBefore: ["1.3.0"] })
    expect(planJoin(resolved, finding("high"), run({ version: "1.3.0" }), "high").updated.status).toBe("resolved")
    expect(planJoin(resolved, finding("high"), run(), "high").updated.status).toBe("resolved")
    expect(planJoin(resolved, finding("high"), run({ version: "1.4.0" }), "high").updated.status).toBe("regressed")
  })

  it("an ignored problem counts its runs and alerts nothing; a silent join (a regroup's replay) alerts nothing", () => {
    const ignored = planJoin(problem({ status: "ignored" }), finding("critical"), run(), "high")
    expect(ignored.updated.runCount).toBe(1)
    expect(ignored.alerts).toEqual([])
    const silent = planJoin(problem({ runCount: 2, status: "resolved" }), finding("high"), run({ silent: true }), "high")
    expect(silent.updated.status).toBe("regressed")
    expect(silent.alerts).toEqual([])
  })
})

describe("the policy's helpers", () => {
  it("patternsOf: a check anchor's lenses are its perspectives'", () => {
    expect(patternsOf(finding("high"))).toEqual(["karl-weick-sensemaking"])
    expect(patternsOf(finding("high", { pattern: "lewin", check: null, perspectives: [] }))).toEqual(["lewin"])
  })

  it("mostSevereBy keeps each key's most severe finding, the first of equals, and skips findings without a key", () => {
    const a = finding("medium", { fingerprint: "a", title: "first" })
    const b = finding("high", { fingerprint: "a", title: "second" })
    const c = finding("high", { fingerprint: "a", title: "third" })
    const d = finding("critical", { fingerprint: "d" })
    const held = mostSevereBy([a, b, c, d], (item) => (item.fingerprint === "d" ? undefined : item.fingerprint))
    expect(Array.from(held.keys())).toEqual(["a"])
    expect(held.get("a")?.title).toBe("second")
  })
})

describe("the alerts' texts", () => {
  it("a problem's alert leads with its news and title, its link, then the run's verdict: explanation, quote, fix", () => {
    const text = problemAlertText(
      "problem.new",
      problem(),
      finding("high", { interventions: [{
        rank: 1,
        type: "guardrail",
        description: "Check the tool's status before confirming",
        rationale: "the 503 was read as success",
        effort: "low",
        impact: "high",
        playbook: null,
        pattern: "karl-weick-sensemaking",
        also_from: []
      }] }),
      "https://svc.example/v1/problems/prb_1"
    )
    expect(text.split("\n")).toEqual([
      "New problem (high): A tool failed and the agent said it succeeded https://svc.example/v1/problems/prb_1",
      "refund answered 503; the agent then told the user it was done",
      "> Your refund is done. (assistant)",
      "Fix: Check the tool's status before confirming"
    ])
    expect(problemAlertText("problem.regressed", problem(), finding("high", { explanation: "", evidence: [] }), null)).toBe(
      "Problem regressed: A tool failed and the agent said it succeeded"
    )
    expect(runFailedText({ error: "provider_unavailable" }, null)).toBe("Run failed: provider_unavailable")
  })
})
