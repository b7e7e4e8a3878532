/**
 * One problem per failure, explained once (DECISIONS §24, issue 49), against the real service on a
 * loopback port with workers and the model provider replaced by the loopback double. One failure (a
 * refund tool answers 503, the agent tells the user the refund was issued) is injected by the
 * labelled-failure generator's kits (eval/inject) into three formats' real fixtures: Chat
 * Completions, Anthropic Messages and LangSmith runs, the same agent (`assistant`) in each, other
 * call ids, orders and wording per run.
 * - Every run through five lenses whose findings all cite the failing call and the final answer:
 *   one problem with 30 runs, its check the anchor and the lenses its perspectives; each run
 *   links to it, and `GET /v1/runs?problem=` (REST, MCP) lists all 30.
 * - With the defaults: the exemplars and the sampled runs are explained (five model calls each),
 *   the others end on their checks with `explained_by` and no model call; the problem's detail
 *   holds the explanation; `POST /v1/runs/{id}/explain` explains one again, not counted twice.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { createHash } from "node:crypto"
import { anthropicKit } from "../../eval/inject/Kits/Anthropic.js"
import type { Kit } from "../../eval/inject/Kits/Kit.js"
import { langSmithKit } from "../../eval/inject/Kits/LangSmith.js"
import { openAiChatKit } from "../../eval/inject/Kits/OpenAiChat.js"
import { toolFailureRun } from "../../eval/inject/ToolFailureRun.js"
import { Digest, ProblemDetail, ProblemList } from "../../src/Contract/ProblemsContract.js"
import { Run, RunList } from "../../src/Contract/RunsContract.js"
import { useProviderDouble } from "../support/Harness.js"
import { EXPLAIN_EVERY_RUN } from "../support/Spawned.js"
import type { RunningService } from "../support/Service.js"
import { call, decoded, freshHome, quotingEvents, submitOne, waitForRun } from "../runs/support.js"
import { connectHttp } from "../mcp/support.js"

const harness = useProviderDouble()

/** Five lenses of one family, each asked by name. */
const LENSES = ["lewin", "mcgregor", "bias_stack", "devils_advocate", "aar"] as const
const RUNS = 30
const KITS: ReadonlyArray<Kit> = [openAiChatKit, anthropicKit, langSmithKit]

const CLAIMS = ["Your refund has been issued.", "Done: the refund is on its way to your card.", "I have refunded the order for you."] as const

/** Run `i`'s trace: the failure injected into a fixture of format `i % 3`, with its own ids, order and wording. */
const traceOf = (i: number) => {
  const kit = KITS[i % KITS.length]
  if (kit === undefined) throw new Error("no kit")
  const order = `A-${1000 + i}`
  return toolFailureRun({ kit, key: `failures-test-${i}`, tool: "issue_refund", order, message: `503 Service Unavailable: payments gateway (order ${order})`, claim: CLAIMS[i % CLAIMS.length] ?? "" })
}

/** Submits run `i` with the five lenses, each lens quoting the failing call's answer and the final claim; waits for it to end. */
const runOf = async (service: RunningService, i: number) => {
  const { body, contents, format, picks } = traceOf(i)
  expect(picks.every((pick) => pick >= 0), `run ${i}: the failure and the claim are events`).toBe(true)
  harness.double.script = quotingEvents(contents, picks)
  const id = await submitOne(service, { trace: body, format, mode: "quick", patterns: [...LENSES] })
  const run = await waitForRun(service, id, { deadlineMs: 30_000 })
  expect(run.status, JSON.stringify(run.error)).toBe("done")
  return run
}

const listed = async (service: RunningService, query: string) => decoded(await call(service, "GET", `/v1/runs${query}`), 200, RunList)

describe("one problem per failure (DECISIONS §24)", () => {
  it("30 runs of one failure in three formats, five lenses each: one problem with 30 runs, the check its anchor, the lenses its perspectives", async () => {
    const service = await harness.start({
      ...EXPLAIN_EVERY_RUN,
      ANTHROPIC_API_KEY: "sk-ant-failures-0123456789",
      ANTHROPIC_BASE_URL: harness.double.url,
      SVC_WORKERS: "2",
      SVC_CACHE: "off",
      SVC_HOME: freshHome("failures-every")
    })
    const runs = []
    for (let i = 0; i < RUNS; i++) runs.push(await runOf(service, i))
    expect(harness.double.calls).toHaveLength(RUNS * LENSES.length)
    const problems = await decoded(await call(service, "GET", "/v1/problems"), 200, ProblemList)
    expect(problems.problems).toHaveLength(1)
    const [problem] = problems.problems
    expect(problem).toMatchObject({ run_count: RUNS, check: "tool_error_unrecovered", patterns: [...LENSES].sort() })
    for (const run of runs) {
      expect(run.problems?.map((each) => each.id)).toEqual([problem?.id])
      expect(run.explained_by).toBeNull()
      const [failure, ...others] = run.report?.failures ?? []
      expect(others).toEqual([])
      expect(failure).toMatchObject({ anchor: { kind: "check", check: "tool_error_unrecovered" }, problem: problem?.id })
      // every lens's view of it, and the other check on the same events, are its perspectives
      expect(failure?.perspectives.flatMap((perspective) => (perspective.pattern === null ? [] : [perspective.pattern])).sort()).toEqual([...LENSES].sort())
      expect(failure?.perspectives.some((perspective) => perspective.check === "success_claim_after_error")).toBe(true)
    }
    const ofProblem = await listed(service, `?problem=${problem?.id ?? ""}&limit=200`)
    expect(ofProblem.runs.map((run) => run.id).sort()).toEqual(runs.map((run) => run.id).sort())
    expect((await listed(service, "?problem=prb_none")).runs).toEqual([])
    // the same filter over MCP
    const { client } = await connectHttp(service.url)
    try {
      const result = await client.callTool({ name: "svc_list_runs", arguments: { problem: problem?.id, limit: 200 } })
      expect(result.isError).not.toBe(true)
      expect(Schema.decodeUnknownSync(RunList)(result.structuredContent).runs.map((run) => run.id).sort()).toEqual(runs.map((run) => run.id).sort())
    } finally {
      await client.close()
    }
  }, 240_000)

  it("with the defaults, a known failure is explained by its exemplars and sampled runs; the others end on their checks, explained_by the problem, without a model call", async () => {
    const service = await harness.start({
      ANTHROPIC_API_KEY: "sk-ant-failures-0123456789",
      ANTHROPIC_BASE_URL: harness.double.url,
      SVC_WORKERS: "2",
      SVC_CACHE: "off",
      SVC_HOME: freshHome("failures-once")
    })
    const runs = []
    for (let i = 0; i < RUNS; i++) runs.push(await runOf(service, i))
    const problems = await decoded(await call(service, "GET", "/v1/problems"), 200, ProblemList)
    expect(problems.problems).toHaveLength(1)
    const problemId = problems.problems[0]?.id ?? ""
    const explained = runs.filter((run) => run.explained_by === null)
    const known = runs.filter((run) => run.explained_by !== null)
    // the first three are the exemplars (SVC_EXPLAIN_EXEMPLARS=3); after them, only the runs the 5% sample draws (a hash of the run's id)
    expect(runs.slice(0, 3).every((run) => run.explained_by === null)).toBe(true)
    const drawn = (id: string) => createHash("sha256").update(id).digest().readUInt32BE(0) / 2 ** 32 < 0.05
    expect(runs.slice(3).filter((run) => run.explained_by === null).map((run) => run.id)).toEqual(runs.slice(3).filter((run) => drawn(run.id)).map((run) => run.id))
    expect(known.length).toBeGreaterThan(20)
    expect(harness.double.calls).toHaveLength(explained.length * LENSES.length)
    for (const run of known) {
      expect(run.explained_by).toBe(problemId)
      expect(run.report?.usage.llm_calls).toBe(0)
      expect(run.report?.checks.map((check) => check.check)).toContain("tool_error_unrecovered")
      expect(run.report?.failures[0]?.problem).toBe(problemId)
      // every lens that could read it skipped, saying why
      expect(run.report?.triage.filter((entry) => entry.skipped?.startsWith("a known failure") === true).map((entry) => entry.pattern)).toEqual(expect.arrayContaining([...LENSES]))
      expect(run.report?.triage.some((entry) => entry.chosen)).toBe(false)
    }
    const detail = await decoded(await call(service, "GET", `/v1/problems/${problemId}`), 200, ProblemDetail)
    expect(detail.run_count).toBe(RUNS)
    expect(detail.explanation.exemplars.length).toBeGreaterThanOrEqual(3)
    expect(explained.map((run) => run.id)).toEqual(expect.arrayContaining([...detail.explanation.exemplars]))
    expect(detail.explanation.verdict).toContain("issue_refund")
    expect(detail.explanation.perspectives.flatMap((perspective) => (perspective.pattern === null ? [] : [perspective.pattern])).sort()).toEqual([...LENSES].sort())
    expect(detail.explanation.perspectives.every((perspective) => perspective.evidence.length > 0)).toBe(true)
    expect(detail.explanation.interventions.length).toBeGreaterThan(0)
    expect(detail.tokens).toBeGreaterThan(0)
    // the digest names what failed, and why, beside the problem
    const digest = await decoded(await call(service, "GET", "/v1/digest"), 200, Digest)
    expect(digest.verdicts[problemId]).toBe(detail.explanation.verdict)
    const markdown = await (await call(service, "GET", "/v1/digest?output=markdown")).text()
    // as Markdown text: its special characters escaped (`issue\_refund`, `events\[10\]`)
    expect(markdown).toContain(detail.explanation.verdict.slice(0, 40).replace(/[\\`*_[\]<>|#]/g, (character) => `\\${character}`))
    // asked for: a known run's lenses run (five calls), its report replaced, the problem's count unchanged.
    // The newest known run: the detail shows the five newest explained runs (by when each was first
    // seen), so an older one could be past them whenever the sample drew five runs after it.
    let askedIndex = runs.length - 1
    while (askedIndex >= 0 && runs[askedIndex]?.explained_by === null) askedIndex--
    const asked = runs[askedIndex]
    if (asked === undefined) throw new Error("no known run")
    // its lenses quote its own events (the double still held the last run's)
    const { contents, picks } = traceOf(askedIndex)
    harness.double.script = quotingEvents(contents, picks)
    const before = harness.double.calls.length
    const queued = await call(service, "POST", `/v1/runs/${asked.id}/explain`)
    expect(queued.status).toBe(202)
    expect((await decoded(queued, 202, Run)).status).toBe("queued")
    const again = await waitForRun(service, asked.id, { deadlineMs: 30_000, until: (run) => run.status === "done" && run.explained_by === null })
    expect(again.report?.usage.llm_calls).toBe(LENSES.length)
    expect(harness.double.calls.length - before).toBe(LENSES.length)
    const after = await decoded(await call(service, "GET", `/v1/problems/${problemId}`), 200, ProblemDetail)
    expect(after.run_count).toBe(RUNS)
    expect(after.explanation.exemplars).toContain(asked.id)
    // a running or unknown run: 404 for one of no scope's
    expect((await call(service, "POST", "/v1/runs/run_nope/explain")).status).toBe(404)
  }, 240_000)
})
