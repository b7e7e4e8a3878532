/**
 * `svc eval` (issue 38, docs/eval.md): the label readers on the published Who&When shapes (the
 * dataset's own files, test/fixtures/traces/autogen/README.md) and on TRAIL-style and JSON Lines
 * items made for these tests; the agent rule; the decisive step read back to the dataset's step
 * index on every shape; the exact-match scorer; the baselines; and the real `svc` binary, in this
 * process and against a service, with the provider double.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Schema } from "effect"
import { appConfig } from "../../src/Config.js"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { baselineOf, firstError, randomExpectation } from "../../src/Surfaces/Cli/Eval/Baselines.js"
import { itemOf, LABEL_FIELDS, readDataset } from "../../src/Surfaces/Cli/Eval/Dataset.js"
import { type ItemResult, normalizeAgent, score, spanOfSource, stepOfSource, summarize } from "../../src/Surfaces/Cli/Eval/Score.js"
import { parseFailUnder } from "../../src/Surfaces/Cli/Eval/Run.js"
import type { NormalizedTrace, TraceFormat } from "../../src/Traces/Model.js"
import { normalizeTrace } from "../../src/Traces/Normalize.js"
import { buildTrace, tracesRequest } from "../otlp/support.js"
import { quotingEvents } from "../runs/support.js"
import { type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"
import { svc } from "../cli/support.js"

const AUTOGEN = join(import.meta.dirname, "..", "fixtures", "traces", "autogen")
const WHO_AND_WHEN = ["who-and-when-hand-crafted-6.json", "who-and-when-hand-crafted-43.json", "who-and-when-algorithm-generated-47.json"]
const LIMITS = Effect.runSync(appConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))).limits

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"))
const normalized = (trace: unknown, format?: TraceFormat): NormalizedTrace => {
  const result = normalizeTrace(trace, format ?? "auto", LIMITS, (each) => each)
  if (Either.isLeft(result)) throw new Error(result.left.message)
  const [first] = result.right.traces
  if (first === undefined) throw new Error("no trace")
  return first
}

describe("the label readers, the agent rule and the step mapping", () => {
  it("normalizes agent names as documented, on the published shapes", () => {
    expect(normalizeAgent("Orchestrator (thought)")).toBe("orchestrator")
    expect(normalizeAgent("Orchestrator (-> WebSurfer)")).toBe("orchestrator")
    expect(normalizeAgent("Orchestrator (termination condition)")).toBe("orchestrator")
    expect(normalizeAgent("  WebSurfer ")).toBe("websurfer")
    expect(normalizeAgent("Mesopotamian_Number_Systems_Expert")).toBe("mesopotamian_number_systems_expert")
    expect(normalizeAgent("Verification Expert")).toBe(normalizeAgent("verification   expert"))
  })

  it("reads Who&When files: the labels, never sent; the step is the index in history, and the event there is the labelled agent's", () => {
    for (const name of WHO_AND_WHEN) {
      const raw = readJson(join(AUTOGEN, name))
      const item = Either.getOrThrow(itemOf(raw, join(AUTOGEN, name), "Hand-Crafted"))
      expect(item.format).toBe("autogen")
      for (const field of LABEL_FIELDS) expect(JSON.stringify(item.trace)).not.toContain(`"${field}"`)
      expect(item.label.agent).not.toBeNull()
      expect(item.label.step).not.toBeNull()
      // the decisive step of a report is an event; its source gives back the dataset's own step index
      const trace = normalized(item.trace, "autogen")
      const event = trace.events.find((each) => stepOfSource(each.source) === item.label.step)
      expect(event, name).toBeDefined()
      expect(normalizeAgent(event?.actor ?? ""), name).toBe(normalizeAgent(item.label.agent ?? ""))
    }
    const six = Either.getOrThrow(itemOf(readJson(join(AUTOGEN, WHO_AND_WHEN[0] ?? "")), "6.json", "Hand-Crafted"))
    expect(six.label).toMatchObject({ agent: "Orchestrator", step: 5 })
    expect(six.groundTruth).toBe("3080000")
  })

  it("reads TRAIL-style {trace, labels} (JSON text or objects) by span location, and {trace, expect} JSON Lines", () => {
    const built = buildTrace(0x38, 1, 3)
    const location = built.tools[1]?.spanId ?? ""
    const trail = itemOf(
      {
        trace: JSON.stringify(tracesRequest(built.spans)),
        labels: JSON.stringify({ trace_id: built.traceId, errors: [{ category: "Tool Output Misinterpretation", location, evidence: "…", impact: "HIGH" }] })
      },
      "trail/1.json",
      "gaia"
    )
    const item = Either.getOrThrow(trail)
    expect(item.label.spans).toEqual([location])
    expect(item.label.categories).toEqual([{ span: location, category: "Tool Output Misinterpretation" }])
    const trace = normalized(item.trace)
    expect(trace.events.some((event) => spanOfSource(event.source) === location)).toBe(true)

    const dir = mkdtempSync(join(tmpdir(), "svc-eval-jsonl-"))
    const messages = { messages: [{ role: "user", content: "Book a table" }, { role: "assistant", content: "Calling the tool" }, { role: "tool", content: "error: no table" }, { role: "assistant", content: "Booked!" }] }
    writeFileSync(join(dir, "set.jsonl"), [
      JSON.stringify({ trace: messages, expect: { agent: "assistant", step: 3 }, split: "chat" }),
      "not json",
      JSON.stringify({ trace: messages, expect: {} })
    ].join("\n"))
    const read = readDataset(dir)
    expect(read.items.map((each) => [each.file.endsWith("set.jsonl:1"), each.split, each.label.step])).toEqual([[true, "chat", 3]])
    expect(read.unread.map((each) => each.reason)).toEqual(["not JSON", "`expect` names no agent, step, span, checks or outcome"])
    expect(stepOfSource(normalized(messages).events[3]?.source ?? "")).toBe(3)
  })

  it("maps every source form back, and nothing else", () => {
    expect(stepOfSource("history[12]")).toBe(12)
    expect(stepOfSource("messages[3]")).toBe(3)
    expect(stepOfSource("[7]")).toBe(7)
    expect(stepOfSource("steps[2]/input")).toBe(2)
    expect(stepOfSource("span:00f067aa0ba902b7")).toBeNull()
    expect(spanOfSource("span:00f067aa0ba902b7/input[2]")).toBe("00f067aa0ba902b7")
    expect(spanOfSource("history[1]")).toBeNull()
  })
})

describe("the scorer", () => {
  const label = { agent: "Orchestrator", step: 1, spans: [], categories: [] }
  it("is exact: step 10 is not step 1, an agent's qualifier does not matter, an abstention is wrong", () => {
    expect(score(label, { agent: "Orchestrator (thought)", step: 10, span: null })).toEqual({ agent: 1, step: 0, span: null, category: null })
    expect(score(label, { agent: "WebSurfer", step: 1, span: null })).toEqual({ agent: 0, step: 1, span: null, category: null })
    expect(score(label, null)).toEqual({ agent: 0, step: 0, span: null, category: null })
    expect(score({ ...label, spans: ["a", "b"] }, { agent: null, step: null, span: "b" }).span).toBe(1)
  })

  it("scores a TRAIL category only through the table that ships: the right span and a pattern mapped to its category", () => {
    const trail = { agent: null, step: null, spans: ["s1", "s2"], categories: [{ span: "s1", category: "Tool Output Misinterpretation" }, { span: "s2", category: "Not In The Table" }] }
    expect(score(trail, { agent: null, step: null, span: "s1", patterns: ["lewin"] })).toMatchObject({ span: 1, category: 1 })
    expect(score(trail, { agent: null, step: null, span: "s1", patterns: ["lencioni"] })).toMatchObject({ span: 1, category: 0 })
    expect(score(trail, { agent: null, step: null, span: "s2", patterns: ["lewin"] })).toMatchObject({ span: 1, category: 0 })
    expect(score({ ...trail, categories: [{ span: "s2", category: "Not In The Table" }] }, { agent: null, step: null, span: "s2" }).category).toBeNull()
  })

  it("sums up per split and setting, coverage beside accuracy", () => {
    const item = (split: string, setting: "with" | "without", agent: number, step: number, answered: boolean): ItemResult => ({
      file: `${split}/${agent}${step}`,
      split,
      setting,
      method: "diagnose",
      label: { agent: "A", step: 1, spans: [] },
      predicted: answered ? { agent: "A", step: 1, span: null } : null,
      scores: { agent, step, span: null },
      lenses: [{ pattern: "lewin", agent, step }],
      tokens: { input: 10, output: 5, llm_calls: 1 },
      elapsed_ms: 100,
      error: null
    })
    const summary = summarize([item("HC", "without", 1, 1, true), item("HC", "without", 1, 0, true), item("AG", "without", 0, 0, false), item("AG", "with", 1, 1, true)])
    expect(summary).toMatchObject({ n: 4, coverage: 0.75, agent_accuracy: 0.75, step_accuracy: 0.5, span_accuracy: null, cost: { input_tokens: 40, output_tokens: 20, llm_calls: 4 } })
    expect(Object.keys(summary.splits)).toEqual(["with/AG", "without/AG", "without/HC"])
    expect(summary.settings["without"]).toMatchObject({ n: 3, agent_accuracy: 0.6667 })
    expect(summary.lenses["lewin"]).toEqual({ n: 4, agent_agreement: 0.75, step_agreement: 0.5 })
    expect(Either.getOrThrow(parseFailUnder("agent=0.4,step=0.1"))).toEqual([["agent_accuracy", 0.4], ["step_accuracy", 0.1]])
    expect(Either.getOrThrow(parseFailUnder("0.5"))).toEqual([["agent_accuracy", 0.5]])
    expect(Either.isLeft(parseFailUnder("agent=2"))).toBe(true)
  })
})

describe("the baselines, on small labelled traces made for the tests", () => {
  const trace: NormalizedTrace = normalized({
    messages: [
      { role: "user", content: "Find the invoice" },
      { role: "assistant", name: "Planner", content: "I will ask the searcher" },
      { role: "assistant", name: "Searcher", content: "Search failed: timeout" },
      { role: "assistant", name: "Planner", content: "Then it does not exist" }
    ]
  })
  const label = { agent: "Planner", step: 3, spans: [], categories: [] }

  it("random: its expected value over the trace's steps, never a draw", () => {
    const steps = new Set(trace.events.map((event) => stepOfSource(event.source))).size
    const planners = trace.events.filter((event) => normalizeAgent(event.actor) === "planner").length
    expect(randomExpectation(trace, label)).toEqual({ agent: planners / steps, step: 1 / steps, span: null })
    expect(baselineOf("random", [], "openai", trace, label).scores).toEqual(randomExpectation(trace, label))
  })

  it("first-error: the first event that says it failed", () => {
    const picked = firstError(trace)
    expect(picked?.step).toBe(2)
    expect(score(label, picked)).toMatchObject({ agent: 0, step: 0, span: null })
    expect(firstError(normalized({ messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] }))).toBeNull()
  })
})

describe("svc eval, the binary", () => {
  let double: ProviderDouble
  let service: RunningService
  let env: Record<string, string>
  beforeAll(async () => {
    double = await startProviderDouble()
    env = { ANTHROPIC_API_KEY: "sk-ant-eval-0123456789", ANTHROPIC_BASE_URL: double.url, SVC_LOG_LEVEL: "none" }
    service = await startService(env)
  })
  afterAll(async () => {
    await service.close()
    await double.close()
  })

  /** Two folders of the published file 43 (Hand-Crafted, Algorithm-Generated) and a JSON Lines item over it labelled elsewhere. */
  const dataset = () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-eval-"))
    for (const split of ["Hand-Crafted", "Algorithm-Generated"]) {
      mkdirSync(join(dir, split))
      copyFileSync(join(AUTOGEN, "who-and-when-hand-crafted-43.json"), join(dir, split, "43.json"))
    }
    const raw = readJson(join(AUTOGEN, "who-and-when-hand-crafted-43.json"))
    const trace = typeof raw === "object" && raw !== null ? Object.fromEntries(Object.entries(raw).filter(([key]) => !LABEL_FIELDS.includes(key))) : {}
    writeFileSync(join(dir, "other.jsonl"), `${JSON.stringify({ trace, format: "autogen", expect: { agent: "WebSurfer", step: 4 }, split: "relabelled" })}\n`)
    return dir
  }
  const contents = normalized(readJson(join(AUTOGEN, "who-and-when-hand-crafted-43.json")), "autogen").events.map((event) => event.content)
  const summaryOf = (text: string) =>
    Schema.decodeUnknownSync(Schema.Struct({ items: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })) }, Schema.Record({ key: Schema.String, value: Schema.Unknown })))(JSON.parse(text))

  it("diagnoses each item, scores the decisive step exactly, keeps results in --out and goes on from them", async () => {
    const dir = dataset()
    const out = join(dir, "results.jsonl")
    // every lens cites event 12 (the Assistant's answer, the labelled mistake of file 43)
    double.script = quotingEvents(contents, [12])
    const first = await svc(["eval", dir, "--mode", "quick", "--patterns", "lewin", "--out", out, "--format", "json", "--concurrency", "2"], { env })
    expect(first.stderr).toBe("")
    expect(first.code).toBe(0)
    const summary = summaryOf(first.stdout)
    expect(summary).toMatchObject({ n: 3, coverage: 1, agent_accuracy: 0.6667, step_accuracy: 0.6667, method: "diagnose" })
    expect(Object.keys(Schema.decodeUnknownSync(Schema.Record({ key: Schema.String, value: Schema.Unknown }))(summary["splits"])).sort()).toEqual(["Algorithm-Generated", "Hand-Crafted", "relabelled"])
    const hand = summary.items.find((item) => String(item["file"]).endsWith(join("Hand-Crafted", "43.json")))
    expect(hand).toMatchObject({ file: join(dir, "Hand-Crafted", "43.json"), label: { agent: "Assistant", step: 12 }, predicted: { agent: "Assistant", step: 12 }, scores: { agent: 1, step: 1 } })
    expect(summary["lenses"]).toEqual({ lewin: { n: 3, agent_agreement: 0.6667, step_agreement: 0.6667 } })
    expect(double.calls).toHaveLength(3)
    expect(readFileSync(out, "utf8").trim().split("\n")).toHaveLength(3)
    // the labels never reached the model
    for (const call of double.calls) expect(call.text).not.toContain("mistake_")

    // again with the same --out: nothing is asked, the same numbers
    const again = await svc(["eval", dir, "--mode", "quick", "--patterns", "lewin", "--out", out, "--format", "json"], { env })
    expect(again.code).toBe(0)
    expect(again.stderr).toContain("3 items already in")
    expect(double.calls).toHaveLength(3)
    expect(summaryOf(again.stdout)).toMatchObject({ n: 3, agent_accuracy: 0.6667, step_accuracy: 0.6667 })

    // --fail-under for CI, and the table
    const failing = await svc(["eval", dir, "--mode", "quick", "--patterns", "lewin", "--out", out, "--fail-under", "agent=0.9"], { env })
    expect(failing.code).toBe(1)
    expect(failing.stderr).toContain("agent_accuracy 66.7% is below --fail-under 0.9")
    expect(failing.stdout).toMatch(/all\s+3\s+100\.0%\s+66\.7%\s+66\.7%/)
  })

  it("with the ground truth, against a service (--url): the answer reaches the model, the setting is its own", async () => {
    const dir = dataset()
    double.reset()
    double.script = quotingEvents(contents, [12])
    const ran = await svc(["eval", join(dir, "Hand-Crafted"), "--mode", "quick", "--patterns", "lewin", "--with-ground-truth", "--format", "json", "--url", service.url], { env: {} })
    expect(ran.code).toBe(0)
    expect(summaryOf(ran.stdout)).toMatchObject({ n: 1, agent_accuracy: 1, step_accuracy: 1, settings: { with: { n: 1 } } })
    expect(double.calls[0]?.text).toContain('correct final answer (ground truth): "10"')
  })

  it("a baseline needs no model: random's expected value, triage's pick", async () => {
    const dir = dataset()
    double.reset()
    const random = await svc(["eval", dir, "--baseline", "random", "--format", "json"], { env })
    expect(random.code).toBe(0)
    const summary = summaryOf(random.stdout)
    const trace = normalized(readJson(join(AUTOGEN, "who-and-when-hand-crafted-43.json")), "autogen")
    const expected = randomExpectation(trace, { agent: "Assistant", step: 12, spans: [], categories: [] })
    expect(summary.items.find((item) => String(item["file"]).includes("Hand-Crafted"))?.["scores"]).toEqual({ agent: expected.agent, step: expected.step, span: null })
    expect(summary["method"]).toBe("baseline:random")
    const triage = await svc(["eval", dir, "--baseline", "triage", "--format", "json"], { env })
    expect(triage.code).toBe(0)
    expect(summaryOf(triage.stdout)["coverage"]).toBe(1)
    expect(double.calls).toHaveLength(0)
  })
})
