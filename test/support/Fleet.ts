/**
 * A realistic fleet for the dashboard's tests and the docs' screenshots (DECISIONS §25), made of
 * the project's real trace exports:
 * - one failure (a refund tool answers 503, the agent says the refund was issued) injected by the
 *   labelled-failure generator's kits (eval/inject) into three formats' fixtures, several runs, each
 *   read by three lenses through the provider double quoting the failing call and the claim: a
 *   check fires, the lenses agree, and the runs make one problem explained by its exemplars;
 * - the content-free OpenTelemetry fixture (`otel/openai-chat-agent-no-content.otlp.json`) with
 *   one tool span failed, sent over OTLP: a run ended on its checks that names the setting turning
 *   content on for its instrumentation;
 * - a real fixture that did not fail (`openai/chat-tool-calls.json`), read by one lens.
 */
import { expect } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { anthropicKit } from "../../eval/inject/Kits/Anthropic.js"
import type { Kit } from "../../eval/inject/Kits/Kit.js"
import { langSmithKit } from "../../eval/inject/Kits/LangSmith.js"
import { openAiChatKit } from "../../eval/inject/Kits/OpenAiChat.js"
import { toolFailureRun } from "../../eval/inject/ToolFailureRun.js"
import { RunList, RunWithReport } from "../../src/Contract/RunsContract.js"
import { call, decoded, quotingEvents, sleep, submitOne, waitForRun } from "../runs/support.js"
import type { ProviderDouble } from "./ProviderDouble.js"
import type { RunningService } from "./Service.js"

type RunWithReport = typeof RunWithReport.Type

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "traces")
export const fixture = (path: string): unknown => JSON.parse(readFileSync(join(FIXTURES, path), "utf8"))

/** The service settings a fleet needs: OTLP traces complete a second after their last span. */
export const FLEET_ENV: Readonly<Record<string, string>> = { SVC_OTLP_QUIET_SECONDS: "1", SVC_OTLP_MAX_AGE_SECONDS: "60" }

/** The content-free OTel fixture (no message text) with its get_weather span failed: a copy, the fixture stays as it is. */
export const contentFreeFailure = (): unknown => {
  const trace: unknown = fixture("otel/openai-chat-agent-no-content.otlp.json")
  const Spans = Schema.Struct({
    resourceSpans: Schema.Array(Schema.Struct({ scopeSpans: Schema.Array(Schema.Struct({ spans: Schema.Array(Schema.Struct({ spanId: Schema.String }, { key: Schema.String, value: Schema.Unknown })) })) }))
  })
  const read = Schema.decodeUnknownSync(Spans)(trace)
  return {
    ...(typeof trace === "object" && trace !== null ? trace : {}),
    resourceSpans: read.resourceSpans.map((resource) => ({
      ...resource,
      scopeSpans: resource.scopeSpans.map((scope) => ({
        ...scope,
        spans: scope.spans.map((span) => (span.spanId === "0e30000000000005" ? { ...span, status: { code: 2 } } : span))
      }))
    }))
  }
}

const KITS: ReadonlyArray<Kit> = [openAiChatKit, anthropicKit, langSmithKit, openAiChatKit]
const CLAIMS = ["Your refund has been issued.", "Done: the refund is on its way to your card.", "I have refunded the order for you."] as const
const LENSES = ["lewin", "mcgregor", "aar"] as const

export interface Fleet {
  /** The runs of the one failure, oldest first. */
  readonly failing: ReadonlyArray<RunWithReport>
  /** The content-free OTLP run. */
  readonly contentFree: RunWithReport
  /** The run that did not fail. */
  readonly clean: RunWithReport
  /** The failure's problem. */
  readonly problemId: string
}

/** Submits the fleet to `service` (its provider the double), as `key`; waits for every run to end. */
export const buildFleet = async (service: RunningService, double: ProviderDouble, key: string): Promise<Fleet> => {
  const failing: Array<RunWithReport> = []
  for (const [i, kit] of KITS.entries()) {
    const order = `A-${4711 + i}`
    const { body, contents, format, picks } = toolFailureRun({
      kit,
      key: `fleet-${i}`,
      tool: "issue_refund",
      order,
      message: `503 Service Unavailable: payments gateway (order ${order})`,
      claim: CLAIMS[i % CLAIMS.length] ?? ""
    })
    double.script = quotingEvents(contents, picks)
    const id = await submitOne(service, { trace: body, format, mode: "quick", patterns: [...LENSES], labels: { version: i < 2 ? "1.3.0" : "1.4.0", service: "refund-desk" } }, { key })
    const run = await waitForRun(service, id, { key, deadlineMs: 30_000 })
    expect(run.status, JSON.stringify(run.error)).toBe("done")
    failing.push(run)
  }
  double.script = () => undefined
  const cleanId = await submitOne(service, { trace: fixture("openai/chat-tool-calls.json"), mode: "quick", patterns: ["lewin"], labels: { version: "1.4.0", service: "weather-bot" } }, { key })
  const clean = await waitForRun(service, cleanId, { key, deadlineMs: 30_000 })

  const sent = await call(service, "POST", "/v1/traces", { key, body: contentFreeFailure() })
  expect(sent.status, (await sent.text()).slice(0, 300)).toBe(200)
  let contentFree: RunWithReport | undefined
  const deadline = Date.now() + 30_000
  while (contentFree === undefined && Date.now() < deadline) {
    const listed = await decoded(await call(service, "GET", "/v1/runs?limit=20", { key }), 200, RunList)
    const ended = listed.runs.find((run) => run.source === "otlp" && ["done", "failed", "skipped"].includes(run.status))
    if (ended !== undefined) contentFree = await waitForRun(service, ended.id, { key })
    else await sleep(100)
  }
  if (contentFree === undefined) throw new Error("the content-free OTLP trace made no run")
  const problemId = failing[0]?.problems?.[0]?.id
  if (problemId === undefined) throw new Error("the failure made no problem")
  return { failing, contentFree, clean, problemId }
}
