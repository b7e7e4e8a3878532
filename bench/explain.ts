/**
 * Explained once (DECISIONS §24, issue 49): what a fleet's failed runs cost in model tokens when
 * a known failure is explained by its problem, against explaining every run in the same mode.
 *
 * The workload: BENCH_EXPLAIN_RUNS (default 1,000) failed runs, all but 20 of them 10 recurring
 * failure kinds (a tool of the kind's own answers 503 and the agent says it is done), and 20
 * unknown ones (each a tool of its own), written by the labelled-failure generator's kits into the
 * fixtures of three formats (Chat Completions, Anthropic Messages, LangSmith runs), each run with
 * its own ids, orders and wording, and the mode and lenses left to the service (SVC_RUN_MODE,
 * SVC_RUN_MAX_PATTERNS: as OTLP runs). Submitted in random order, 8 at a time, to the built
 * service with 4 workers and the provider double (which counts tokens from the request, as the
 * providers do); then drained. Two services, each on a fresh SVC_HOME, in the same run:
 * - the service: the defaults (SVC_EXPLAIN_EXEMPLARS=3, SVC_EXPLAIN_SAMPLE=0.05, SVC_EXPLAIN_MAX_PER_DAY=20);
 * - the baseline: every run explained (SVC_EXPLAIN_SAMPLE=1, SVC_EXPLAIN_MAX_PER_DAY=100000).
 * - a third service with SVC_EXPLAIN_SAMPLE=0.02 (reported: the budget with a smaller sample).
 * Reported: tokens spent (the digest's `tokens_spent`) as a ratio (goal ≤ 0.08; the itemized budget
 * at the default 5% sample is in the row's detail), model calls,
 * B-cubed precision and recall of the runs' problems against their kinds (goal ≥ 0.95 each), and
 * the time to drain as a ratio.
 *
 *   npx tsx bench/explain.ts   (part of `npm run bench`; BENCH_ONLY=explain runs it alone)
 */
import { createHash } from "node:crypto"
import { join } from "node:path"
import { Schema } from "effect"
import { anthropicKit } from "../eval/inject/Kits/Anthropic.js"
import type { Kit } from "../eval/inject/Kits/Kit.js"
import { langSmithKit } from "../eval/inject/Kits/LangSmith.js"
import { openAiChatKit } from "../eval/inject/Kits/OpenAiChat.js"
import { toolFailureRun } from "../eval/inject/ToolFailureRun.js"
import { RunList, RunWithReport, SubmitRunsResponse } from "../src/Contract/RunsContract.js"
import { BENCH_KEY, launchService, machineOf, round2, type Row, startDouble, stopChild, writeResults } from "./support.js"

const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const RUNS = Number(process.env["BENCH_EXPLAIN_RUNS"] ?? 1_000)
const KINDS = 10
const UNKNOWN = 20
/** The key launchService configures (bench/support.ts). */
const AUTH = { authorization: `Bearer ${BENCH_KEY}` }
const SERVER = join(import.meta.dirname, "..", "dist", "server.mjs")
const KITS: ReadonlyArray<Kit> = [openAiChatKit, anthropicKit, langSmithKit]
const CLAIMS = ["Your refund has been issued.", "Done: it went through.", "All set, that is taken care of for you."] as const

interface Item {
  readonly kind: string
  readonly body: unknown
  readonly format: string
}

/** Run `i` of `kind`: tool `tool` answers 503, the agent claims success; its format, ids and wording from `i`. */
const itemOf = (i: number, kind: string, tool: string): Item => {
  const kit = KITS[i % KITS.length]
  if (kit === undefined) throw new Error("no kit")
  const order = `A-${10_000 + i}`
  const { body, format } = toolFailureRun({ kit, key: `explain-${kind}-${i}`, tool, order, message: `503 Service Unavailable (order ${order})`, claim: CLAIMS[i % CLAIMS.length] ?? "" })
  return { kind, body, format }
}

const workload = (): ReadonlyArray<Item> => {
  const items: Array<Item> = []
  for (let i = 0; i < RUNS - UNKNOWN; i++) {
    const kind = `kind_${i % KINDS}`
    items.push(itemOf(i, kind, `tool_${kind}`))
  }
  for (let u = 0; u < UNKNOWN; u++) items.push(itemOf(RUNS + u, `unknown_${u}`, `rare_tool_${u}`))
  // a fixed shuffle: kinds interleave as a fleet's runs do
  const keyed = items.map((item, index) => ({ item, key: createHash("sha256").update(String(index)).digest("hex") }))
  return keyed.sort((a, b) => a.key.localeCompare(b.key)).map((entry) => entry.item)
}

const decodeSubmitted = Schema.decodeUnknownSync(Schema.parseJson(SubmitRunsResponse))
const decodeList = Schema.decodeUnknownSync(Schema.parseJson(RunList))
const decodeRun = Schema.decodeUnknownSync(Schema.parseJson(RunWithReport))

interface Pass {
  readonly tokens: number
  readonly calls: number
  readonly drainMs: number
  /** Each run's kind and the problem it joined. */
  readonly assigned: ReadonlyArray<{ readonly kind: string; readonly problem: string | null; readonly explained: boolean }>
}

const inParallel = async (count: number, width: number, work: (index: number) => Promise<void>) => {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await work(next++)
  }))
}

const pass = async (items: ReadonlyArray<Item>, env: Record<string, string>): Promise<Pass> => {
  const double = await startDouble(0)
  const service = await launchService(SERVER, [], { SVC_WORKERS: "4", SVC_CACHE: "off", ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: double.url, ...env })
  try {
    const ids: Array<string> = new Array<string>(items.length)
    const started = Date.now()
    await inParallel(items.length, 8, async (index) => {
      const item = items[index]
      if (item === undefined) return
      const answer = await fetch(`${service.url}/v1/runs`, {
        method: "POST",
        headers: { "content-type": "application/json", ...AUTH },
        body: JSON.stringify({ trace: item.body, format: item.format, labels: { kind: item.kind } })
      })
      const text = await answer.text()
      if (answer.status !== 202) throw new Error(`POST /v1/runs: ${answer.status} ${text.slice(0, 300)}`)
      ids[index] = decodeSubmitted(text).runs[0]?.id ?? ""
    })
    const get = async (path: string) => (await fetch(`${service.url}${path}`, { headers: AUTH })).text()
    const none = async (status: string) => decodeList(await get(`/v1/runs?status=${status}&limit=1`)).runs.length === 0
    const deadline = Date.now() + 30 * 60_000
    while (!((await none("queued")) && (await none("running")))) {
      if (Date.now() > deadline) throw new Error("runs not drained after 30 minutes")
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    const assigned: Array<Pass["assigned"][number]> = []
    let finished = started
    for (const [index, id] of ids.entries()) {
      const run = decodeRun(await get(`/v1/runs/${id}`))
      if (run.status !== "done") throw new Error(`run ${id} ended ${run.status}: ${JSON.stringify(run.error ?? run.reason)}`)
      finished = Math.max(finished, run.finished_at === null ? started : Date.parse(run.finished_at))
      assigned.push({ kind: items[index]?.kind ?? "", problem: run.problems?.[0]?.id ?? null, explained: run.explained_by === null })
    }
    const digest: unknown = JSON.parse(await get("/v1/digest"))
    const tokens = typeof digest === "object" && digest !== null ? Number(Reflect.get(digest, "tokens_spent")) : Number.NaN
    return { tokens, calls: await double.calls(), drainMs: finished - started, assigned }
  } finally {
    await stopChild(service.child)
    await stopChild(double.child)
  }
}

/** B-cubed precision and recall of the runs' problems (clusters) against their kinds (classes). */
export const bCubed = (assigned: ReadonlyArray<{ readonly kind: string; readonly problem: string | null }>) => {
  const clusterOf = (index: number) => assigned[index]?.problem ?? `none:${index}`
  let precision = 0
  let recall = 0
  assigned.forEach((item, index) => {
    const cluster = clusterOf(index)
    const inCluster = assigned.filter((_, other) => clusterOf(other) === cluster)
    const inClass = assigned.filter((other) => other.kind === item.kind)
    const both = inCluster.filter((other) => other.kind === item.kind).length
    precision += both / inCluster.length
    recall += both / inClass.length
  })
  return { precision: precision / assigned.length, recall: recall / assigned.length }
}

if (ONLY.size === 0 || ONLY.has("explain")) {
  const started = new Date().toISOString()
  const items = workload()
  const service = await pass(items, {})
  const baseline = await pass(items, { SVC_EXPLAIN_SAMPLE: "1", SVC_EXPLAIN_MAX_PER_DAY: "100000" })
  // the same fleet with a 2% sample: what the rest of the budget (exemplars, unknown failures, the workers' races) costs
  const smallSample = await pass(items, { SVC_EXPLAIN_SAMPLE: "0.02" })
  const quality = bCubed(service.assigned)
  const explained = service.assigned.filter((item) => item.explained).length
  // the itemized budget at the default sample: every kind's exemplars, the unknown failures, the sampled share of the rest
  const itemized = (KINDS * 3 + UNKNOWN + 0.05 * (items.length - KINDS * 3 - UNKNOWN)) / items.length
  const rows: Array<Row> = [
    {
      scenario: "explain",
      metric: `model tokens for ${items.length} failed runs (${KINDS} kinds + ${UNKNOWN} unknown), explained per problem vs every run`,
      service: service.tokens,
      baseline: baseline.tokens,
      ratio: round2(service.tokens / baseline.tokens),
      goal: "≤ 0.08",
      met: service.tokens / baseline.tokens <= 0.08,
      detail: { calls: service.calls, baseline_calls: baseline.calls, explained_runs: explained, itemized_budget_ratio: round2(itemized) }
    },
    {
      scenario: "explain",
      metric: "model tokens with SVC_EXPLAIN_SAMPLE=0.02, vs every run",
      service: smallSample.tokens,
      baseline: baseline.tokens,
      ratio: round2(smallSample.tokens / baseline.tokens),
      goal: "report",
      met: null,
      detail: { calls: smallSample.calls, explained_runs: smallSample.assigned.filter((item) => item.explained).length }
    },
    {
      scenario: "explain",
      metric: "B-cubed precision of the runs' problems against their failure kinds",
      service: round2(quality.precision),
      baseline: null,
      ratio: null,
      goal: "≥ 0.95",
      met: quality.precision >= 0.95
    },
    {
      scenario: "explain",
      metric: "B-cubed recall of the runs' problems against their failure kinds",
      service: round2(quality.recall),
      baseline: null,
      ratio: null,
      goal: "≥ 0.95",
      met: quality.recall >= 0.95
    },
    {
      scenario: "explain",
      metric: "ms to drain the runs, against explaining every run",
      service: service.drainMs,
      baseline: baseline.drainMs,
      ratio: round2(service.drainMs / baseline.drainMs),
      goal: "report",
      met: null
    }
  ]
  writeResults({ started, machine: machineOf(), rows }, "explain-", ONLY.size === 0 ? "explain-latest.json" : undefined)
}
