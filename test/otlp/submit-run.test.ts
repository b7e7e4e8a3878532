/**
 * The OTLP assembly's run request (issue 51): a completed trace goes to the runs as a typed
 * `SubmitRunRequest` (src/Runs/RunsService.ts `submitRun`), its spans the OTLP/JSON document the
 * span readers take, no body re-detected. What it keeps is what the previous code kept, which sent
 * the same document through the body path (`submit`, the format detected): the same format, trace
 * and options, so the same trace is the one run either way (the runs' de-duplication) and a run
 * stored before reads the same. In process, over the service's own Layers and a fresh SQLite home.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Layer, Schema, Scope } from "effect"
import { Caller, callerFrom, type CallerShape } from "../../src/Auth/Caller.js"
import { Scopes } from "../../src/Auth/Scopes.js"
import { appConfig } from "../../src/Config.js"
import { RunExport } from "../../src/Contract/RunsContract.js"
import { NO_QUERY } from "../../src/Intake/Intake.js"
import type { KeyValue, OtlpDocument, Span } from "../../src/Otlp/Wire/Model.js"
import { ResourcesLive } from "../../src/Resources.js"
import { RunsService, type RunsServiceShape } from "../../src/Runs/RunsService.js"
import { freshHome } from "../runs/support.js"
import { buildTrace, tracesRequest } from "./support.js"

const decodeExport = Schema.decodeUnknownSync(Schema.parseJson(RunExport))
const str = (key: string, value: string): KeyValue => ({ key, value: { stringValue: value } })

const documentOf = (spans: ReadonlyArray<Span>): OtlpDocument => ({ ...tracesRequest(spans), resourceLogs: [] })

/** An OpenInference LLM span (Arize Phoenix's instrumentation) as OTLP sends it. */
const openInferenceDocument = (): OtlpDocument => {
  const traceId = "0123456789abcdef0123456789abcdef"
  const span: Span = {
    traceId,
    spanId: "0123456789abcdef",
    name: "ChatCompletion",
    kind: 1,
    startTimeUnixNano: "1767225600000000000",
    endTimeUnixNano: "1767225601000000000",
    attributes: [
      str("openinference.span.kind", "LLM"),
      str("llm.model_name", "gpt-4o"),
      str("llm.input_messages.0.message.role", "user"),
      str("llm.input_messages.0.message.content", "What is the capital of Norway?"),
      str("llm.output_messages.0.message.role", "assistant"),
      str("llm.output_messages.0.message.content", "Oslo.")
    ],
    events: [],
    links: [],
    status: { code: 1 }
  }
  return { resourceSpans: [{ resource: { attributes: [str("service.name", "phoenix-app")] }, scopeSpans: [{ scope: { name: "openinference.instrumentation.openai" }, spans: [span] }] }], resourceLogs: [] }
}

/** The document as a client's body: what the previous assembly handed `submit`. */
const asBody = (document: OtlpDocument) => Schema.decodeUnknownSync(Schema.Record({ key: Schema.String, value: Schema.Unknown }))(JSON.parse(JSON.stringify(document)))

describe("the OTLP assembly's SubmitRunRequest", () => {
  const scope = Effect.runSync(Scope.make())
  let service: RunsServiceShape | undefined
  let caller: CallerShape | undefined
  beforeAll(async () => {
    const provider = ConfigProvider.fromMap(new Map([["SVC_LOG_LEVEL", "none"], ["SVC_HOME", freshHome("submit-run")], ["SVC_RUN_MODE", "standard"], ["SVC_RUN_MAX_PATTERNS", "2"]]))
    const context = await Effect.runPromise(
      Effect.flatMap(appConfig, (config) => Layer.buildWithScope(ResourcesLive(config), scope)).pipe(Effect.withConfigProvider(provider))
    )
    service = Context.get(context, RunsService)
    caller = Effect.runSync(callerFrom(Context.get(context, Scopes), null))
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  const runs = (): RunsServiceShape => {
    if (service === undefined) throw new Error("the service did not start")
    return service
  }
  /** An effect of the service run for the caller with no key (auth is off). */
  const run = <A, E>(effect: Effect.Effect<A, E, Caller>) => {
    if (caller === undefined) throw new Error("the service did not start")
    return Effect.runPromise(Effect.provideService(effect, Caller, caller))
  }
  // the body path with the run defaults the runs apply to a body that names no options
  const submitAsBody = (document: OtlpDocument) => run(runs().submit(asBody(document), NO_QUERY))
  const submitRun = (document: OtlpDocument, skip: () => "not_failed" | undefined = () => undefined) =>
    run(runs().submitRun({ document, labels: { service: "weather-agent" }, skip: () => Effect.sync(skip) }))
  /** A run as exported: its format, trace and options as kept. */
  const exported = async (traceId: string | null | undefined) => {
    const page = await run(runs().exportPage({ traceId: traceId ?? "" }, null))
    return page.lines.map((line) => decodeExport(line))
  }

  it.each([
    ["an OpenTelemetry GenAI trace", () => documentOf(buildTrace(51, 1, 3).spans), "otel"],
    ["an OpenInference trace", openInferenceDocument, "openinference"]
  ])("%s: the run the body path made is the run submitRun makes (the same format, trace and options)", async (_, make, format) => {
    const document = make()
    const before = await submitAsBody(document)
    const [made] = before.runs
    expect(made?.status).toBe("queued")
    const after = await submitRun(document)
    expect(after).toEqual(before)
    const [kept, ...more] = await exported(made?.trace_id)
    expect(more).toEqual([])
    expect(kept?.run.id).toBe(made?.id)
    expect(kept?.format).toBe(format)
    expect(kept?.options).toEqual({ mode: "standard", max_patterns: 2, model: null, hints: {}, patterns: null, budget_tokens: null })
  })

  it("keeps the labels and the skip decision it is given, under source otlp", async () => {
    const document = documentOf(buildTrace(51, 2, 2).spans)
    const outcome = await submitRun(document, () => "not_failed")
    const [made] = outcome.runs
    expect(made?.status).toBe("skipped")
    const stored = await run(runs().get(made?.id ?? ""))
    expect(stored).toMatchObject({ source: "otlp", reason: "not_failed", labels: { service: "weather-agent" }, trace_id: buildTrace(51, 2, 2).traceId })
  })

  it("refuses a document of which the span readers read nothing (a validation error)", async () => {
    const empty: OtlpDocument = { resourceSpans: [], resourceLogs: [] }
    const refusal = await run(Effect.flip(runs().submitRun({ document: empty, labels: {}, skip: () => Effect.succeed(undefined) })))
    expect(refusal._tag).toBe("ValidationError")
    expect(refusal.message).toMatch(/^the otel trace cannot be used: /)
  })
})
