/**
 * Two diagnose reports written by hand, with the context each renderer gets (the normalized
 * events and the trace file's text), for the rendering tests:
 * - `otelSample`: an OTLP/JSON trace of a three-agent data migration (orchestrator, migrator,
 *   reviewer) whose migrator hid a tool warning; the check `tool_error_unrecovered` fired on its
 *   verify_counts timeout (the finding the checks give this trace); four lenses ran (one from the
 *   cache, one timed out), with corroborated findings citing spans, a decisive step and ranked
 *   interventions. A tool result in the trace carries an HTML-injection payload, as real data
 *   sometimes does.
 * - `chatSample`: an OpenAI Chat Completions conversation (`messages[i]` sources) in which the
 *   lenses found nothing.
 * The events are read from the trace text by the service's own importers, so sources and contents
 * are what the service would produce.
 */
import { Either } from "effect"
import type { DiagnoseReport, ReportContext } from "../../src/Contract/DiagnoseReport.js"
import { openAiImporter } from "../../src/Traces/Formats/OpenAI.js"
import { otelImporter } from "../../src/Traces/Formats/Otel.js"
import type { Importer } from "../../src/Traces/Importer.js"

export const HOSTILE = "<script>alert(1)</script>\"><img src=x onerror=alert(1)>"

export interface Sample {
  readonly report: DiagnoseReport
  readonly context: ReportContext
}

const eventsOf = (importer: Importer, body: string): ReportContext["events"] => {
  const traces = Either.getOrThrow(importer.read(JSON.parse(body)))
  const trace = traces[0]
  if (trace === undefined) throw new Error("the sample trace holds no trace")
  return trace.events.map((event) => ({
    actor: event.actor,
    kind: event.kind,
    content: event.content,
    timestamp: event.timestamp,
    source: event.source
  }))
}

// ---------------------------------------------------------------------------------------------
// The OpenTelemetry sample
// ---------------------------------------------------------------------------------------------

export const OTEL_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
export const SPANS = {
  orchestrator: "00f067aa0ba902b7",
  migrator: "b7ad6b7169203331",
  runSql: "5fb397be34d26b51",
  verify: "9c4e1f3d2a6b8e01",
  reviewer: "e2f1c0d9b8a7f6e5"
} as const

const text = (key: string, value: string) => ({ key, value: { stringValue: value } })
const messages = (list: ReadonlyArray<readonly [string, string]>) =>
  JSON.stringify(list.map(([role, content]) => ({ role, parts: [{ type: "text", content }] })))
const START_MS = 1_795_458_674_000
const nanos = (ms: number) => (BigInt(START_MS + ms) * 1_000_000n).toString()
const span = (
  spanId: string,
  parentSpanId: string | undefined,
  name: string,
  start: number,
  end: number,
  attributes: ReadonlyArray<ReturnType<typeof text>>,
  status: { readonly code: number; readonly message?: string } = { code: 1 }
) => ({
  traceId: OTEL_TRACE_ID,
  spanId,
  ...(parentSpanId === undefined ? {} : { parentSpanId }),
  name,
  kind: 1,
  startTimeUnixNano: nanos(start),
  endTimeUnixNano: nanos(end),
  attributes,
  status
})

export const otelBody = JSON.stringify(
  {
    resourceSpans: [{
      resource: { attributes: [text("service.name", "orders-migration-crew")] },
      scopeSpans: [{
        scope: { name: "crew-telemetry", version: "1.4.0" },
        spans: [
          span(SPANS.orchestrator, undefined, "invoke_agent orchestrator", 0, 9000, [
            text("gen_ai.operation.name", "invoke_agent"),
            text("gen_ai.agent.name", "orchestrator"),
            text(
              "gen_ai.system_instructions",
              JSON.stringify([{ type: "text", content: "You coordinate the migrator and the reviewer. Do not approve a cut-over without verified row counts." }])
            ),
            text("gen_ai.input.messages", messages([["user", "Migrate the orders table to the v2 schema and confirm the row counts match before cut-over."]])),
            text("gen_ai.output.messages", messages([["assistant", "Migration finished and reviewed: orders_v2 is ready for cut-over."]]))
          ]),
          span(SPANS.migrator, SPANS.orchestrator, "invoke_agent migrator", 100, 6000, [
            text("gen_ai.operation.name", "invoke_agent"),
            text("gen_ai.agent.name", "migrator"),
            text("gen_ai.input.messages", messages([["user", "Copy orders into orders_v2 and verify counts."]])),
            text("gen_ai.output.messages", messages([["assistant", "Migration complete: all 44,310 rows converted. Ready for cut-over."]]))
          ]),
          span(SPANS.runSql, SPANS.migrator, "execute_tool run_sql", 500, 3500, [
            text("gen_ai.operation.name", "execute_tool"),
            text("gen_ai.tool.name", "run_sql"),
            text("gen_ai.tool.call.arguments", JSON.stringify({ sql: "INSERT INTO orders_v2 SELECT * FROM orders" })),
            text("gen_ai.tool.call.result", `INSERT 0 43106\nWARNING: 1204 rows skipped (invalid currency code); first bad value: ${HOSTILE}`)
          ]),
          span(SPANS.verify, SPANS.migrator, "execute_tool verify_counts", 3600, 5600, [
            text("gen_ai.operation.name", "execute_tool"),
            text("gen_ai.tool.name", "verify_counts"),
            text("gen_ai.tool.call.arguments", JSON.stringify({ tables: ["orders", "orders_v2"] }))
          ], { code: 2, message: "verify_counts timed out after 30 s" }),
          span(SPANS.reviewer, SPANS.orchestrator, "invoke_agent reviewer", 6100, 8800, [
            text("gen_ai.operation.name", "invoke_agent"),
            text("gen_ai.agent.name", "reviewer"),
            text("gen_ai.input.messages", messages([["user", "Review the migrator's report: all 44,310 rows converted."]])),
            text("gen_ai.output.messages", messages([["assistant", "Looks good to me. Approved for cut-over."]]))
          ])
        ]
      }]
    }]
  },
  null,
  2
)

const otelEvents = eventsOf(otelImporter, otelBody)

const at = (events: ReportContext["events"], index: number) => {
  const event = events[index]
  if (event === undefined) throw new Error(`the sample has no event ${index}`)
  return event
}

// Events of the otel sample (see the importer's reading in the test): 5 the run_sql result with the
// warning, 6 the verify_counts call, 7 its timeout, 8 the migrator's "all rows converted", 11 the
// reviewer's approval, 12 the orchestrator's final answer.
const RUN_SQL_RESULT = 5
const VERIFY_CALL = 6
const VERIFY_ERROR = 7
const MIGRATOR_REPORT = 8
const REVIEWER_APPROVAL = 11
const FINAL_ANSWER = 12

const evidence = (index: number, quote: string, ref = `steps[${index}]`) => {
  const event = at(otelEvents, index)
  if (!event.content.includes(quote)) throw new Error(`the quote "${quote}" is not in event ${index}`)
  return { ref, quote, source: event.source, event: index, actor: event.actor }
}

/** A check's evidence as src/Checks/Run.ts writes it: the event's whole text (it is short here). */
const checkEvidence = (index: number) => {
  const event = at(otelEvents, index)
  return { ref: `events[${index}]`, quote: event.content, source: event.source, event: index, actor: event.actor }
}

const signals = (values: Record<string, number | string>, highlights: ReadonlyArray<{ ref: string; reason: string }> = []) => ({ values, highlights })

export const otelSample: Sample = {
  report: {
    trace: {
      format: "otel",
      id: OTEL_TRACE_ID,
      task: "Migrate the orders table to the v2 schema and confirm the row counts match before cut-over.",
      outcome: "Migration finished and reviewed: orders_v2 is ready for cut-over.",
      success: null,
      events: otelEvents.length,
      agents: ["orchestrator", "migrator", "reviewer"],
      skipped: 0,
      redactions: {}
    },
    mode: "standard",
    model: "gpt-4o-mini",
    severity: "critical",
    confidence: 0.88,
    summary:
      "The migrator's run_sql call skipped 1,204 rows with a warning, its verify_counts check timed out, and it still reported that all 44,310 rows were converted; the reviewer approved the cut-over on that report alone. Three lenses agree that the failure was a hidden error, not a bad query.",
    decisive_step: {
      event: RUN_SQL_RESULT,
      source: at(otelEvents, RUN_SQL_RESULT).source,
      actor: at(otelEvents, RUN_SQL_RESULT).actor,
      kind: "tool_result",
      timestamp: at(otelEvents, RUN_SQL_RESULT).timestamp ?? null,
      content: at(otelEvents, RUN_SQL_RESULT).content,
      severity: "critical",
      patterns: ["lencioni"],
      findings: ["Migrator reported a clean migration after a tool warning"],
      checks: []
    },
    // What the checks give this trace (runChecks on its normalized events), the first of them.
    checks: [
      {
        check: "tool_error_unrecovered",
        title: "A tool failed and the run carried on as if it had not",
        severity: "high",
        explanation:
          "verify_counts failed at events[7] (verify_counts timed out after 30 s); it was not called again successfully, and the final answer at events[12] does not mention the failure.",
        playbook: "lewin/environmental.tool_failure_unhandled",
        fingerprint: "3ddf5ca677ebdb43",
        evidence: [checkEvidence(VERIFY_ERROR), checkEvidence(VERIFY_CALL), checkEvidence(FINAL_ANSWER)]
      }
    ],
    // What src/Problems/Failures.ts makes of these checks and findings on this trace (DECISIONS §24)
    failures: [
      {
        anchor: { kind: "check", check: "tool_error_unrecovered", pattern: null, title: "A tool failed and the run carried on as if it had not", severity: "high" },
        fingerprint: "3ddf5ca677ebdb43",
        problem: null,
        perspectives: [
          { pattern: "lencioni", check: null, title: "Migrator reported a clean migration after a tool warning" },
          { pattern: "psych_safety", check: null, title: "A failed verification was left out of the report" }
        ],
        events: [RUN_SQL_RESULT, VERIFY_CALL, VERIFY_ERROR, MIGRATOR_REPORT, FINAL_ANSWER]
      },
      {
        anchor: { kind: "finding", check: null, pattern: "group_decision", title: "Cut-over approved without evidence", severity: "medium" },
        fingerprint: "192ea2e7854248bd22a843e9a52b5c62",
        problem: null,
        perspectives: [],
        events: [REVIEWER_APPROVAL]
      }
    ],
    findings: [
      {
        pattern: "lencioni",
        id: "f1",
        title: "Migrator reported a clean migration after a tool warning",
        severity: "critical",
        confidence: 0.92,
        explanation:
          "Absence of trust shows as hidden errors: run_sql warned that 1,204 rows were skipped, and the migrator's report to the orchestrator says every row was converted. The team built its cut-over decision on a problem only the migrator had seen.",
        playbook: "absence_of_trust.hidden_errors",
        evidence: [
          evidence(RUN_SQL_RESULT, `WARNING: 1204 rows skipped (invalid currency code); first bad value: ${HOSTILE}`),
          evidence(MIGRATOR_REPORT, "Migration complete: all 44,310 rows converted.")
        ],
        corroborated_by: ["psych_safety"]
      },
      {
        pattern: "psych_safety",
        id: "f1",
        title: "A failed verification was left out of the report",
        severity: "high",
        confidence: 0.81,
        explanation:
          "The verify_counts call ended in a timeout and the migrator did not mention it: errors are not surfaced to the rest of the team, which is the opposite of a learning climate.",
        playbook: "silence.unreported_failure",
        evidence: [
          evidence(VERIFY_ERROR, "verify_counts timed out after 30 s"),
          evidence(MIGRATOR_REPORT, "Ready for cut-over.")
        ],
        corroborated_by: ["lencioni"]
      },
      {
        pattern: "group_decision",
        id: "f2",
        title: "Cut-over approved without evidence",
        severity: "medium",
        confidence: 0.7,
        explanation:
          "The reviewer approved on the migrator's word (\"Looks good to me\"): no row counts were asked for or checked, although the orchestrator's instructions require them.",
        playbook: null,
        evidence: [evidence(REVIEWER_APPROVAL, "Looks good to me. Approved for cut-over.")],
        corroborated_by: []
      }
    ],
    interventions: [
      {
        rank: 1,
        type: "scaffold",
        description:
          "Give every agent report a structured status block (result, known issues, what is unverified) and have the orchestrator reject a report with no known issues after any tool warning or error.",
        rationale: "A softened summary can no longer hide a warning that the orchestrator can see.",
        effort: "low",
        impact: "high",
        playbook: "absence_of_trust.hidden_errors",
        pattern: "lencioni",
        also_from: ["psych_safety"]
      },
      {
        rank: 2,
        type: "guardrail",
        description: "Block the cut-over until verify_counts has succeeded and its counts match.",
        rationale: "The approval then rests on a check, not on a report.",
        effort: "low",
        impact: "high",
        playbook: null,
        pattern: "group_decision",
        also_from: []
      },
      {
        rank: 3,
        type: "prompt",
        description: "Tell the reviewer to ask for the evidence behind every \"done\" before approving.",
        rationale: "Makes dissent the reviewer's job instead of an exception.",
        effort: "low",
        impact: "medium",
        playbook: "silence.unreported_failure",
        pattern: "psych_safety",
        also_from: []
      }
    ],
    patterns: [
      {
        pattern: "lencioni",
        friendly: "Lencioni Five Dysfunctions",
        status: "ok",
        error: null,
        cached: false,
        signals: signals({ tool_errors: 1, warnings_unreported: 1 }, [{ ref: `steps[${RUN_SQL_RESULT}]`, reason: "tool warning" }]),
        playbooks: ["absence_of_trust.hidden_errors", "fear_of_conflict.artificial_harmony"],
        detection: { severity: "critical" }
      },
      {
        pattern: "psych_safety",
        friendly: "Edmondson Psychological Safety",
        status: "cache_hit",
        error: null,
        cached: true,
        signals: signals({ errors: 1, errors_reported: 0 }),
        playbooks: ["silence.unreported_failure"],
        detection: { severity: "high" }
      },
      {
        pattern: "group_decision",
        friendly: "Group Decision Protocol",
        status: "ok",
        error: null,
        cached: false,
        signals: signals({ approvals: 1, approvals_with_evidence: 0 }),
        playbooks: [],
        detection: { severity: "medium" }
      },
      {
        pattern: "social_loafing",
        friendly: "Social Loafing Detector",
        status: "timeout",
        error: { kind: "timeout", message: "the model did not answer within 60 s (SVC_LLM_TIMEOUT_MS)" },
        cached: false,
        signals: signals({ agents: 3 }),
        playbooks: ["free_riding.unchecked_delegation"],
        detection: null
      }
    ],
    triage: [
      { pattern: "lencioni", friendly: "Lencioni Five Dysfunctions", score: 0.91, chosen: true, reasons: ["3 agents", "a tool warning followed by a success report"], skipped: null },
      { pattern: "psych_safety", friendly: "Edmondson Psychological Safety", score: 0.84, chosen: true, reasons: ["an error event", "no agent mentions it"], skipped: null },
      { pattern: "group_decision", friendly: "Group Decision Protocol", score: 0.66, chosen: true, reasons: ["an approval step"], skipped: null },
      { pattern: "social_loafing", friendly: "Social Loafing Detector", score: 0.52, chosen: true, reasons: ["delegation between agents"], skipped: null },
      { pattern: "span_of_control", friendly: "Span of Control", score: 0.41, chosen: false, reasons: ["one coordinator, two reports"], skipped: "max_patterns (4) reached" },
      { pattern: "grpi", friendly: "GRPI Team Effectiveness", score: 0.2, chosen: false, reasons: ["roles not stated"], skipped: "needs hints: roles" }
    ],
    coverage: { patterns_run: 4, patterns_failed: 1, patterns_skipped: 2, events: otelEvents.length, events_cited: 4 },
    usage: { llm_calls: 3, input_tokens: 18_420, cached_input_tokens: 12_800, output_tokens: 2_310, elapsed_ms: 14_250, estimated_tokens: 24_000, budget_tokens: 40_000 },
    cached: false,
    generated_at: "2026-11-23T18:32:05.123Z"
  },
  context: { events: otelEvents, artifact: "traces/orders-migration.otlp.json", body: otelBody }
}

// ---------------------------------------------------------------------------------------------
// The chat sample
// ---------------------------------------------------------------------------------------------

export const chatBody = JSON.stringify(
  {
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: "You are a support assistant for a bookshop. Answer from the order data only." },
      { role: "user", content: "Where is my order #5521? It was due yesterday." },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup_order", arguments: "{\"order_id\":\"5521\"}" } }]
      },
      { role: "tool", tool_call_id: "call_1", content: "{\"order_id\":\"5521\",\"status\":\"in transit\",\"carrier\":\"DHL\",\"eta\":\"tomorrow\"}" },
      { role: "assistant", content: "Your order #5521 is in transit with DHL and should arrive tomorrow. Sorry for the delay!" },
      { role: "user", content: "Thanks, that helps." }
    ]
  },
  null,
  2
)

const chatEvents = eventsOf(openAiImporter, chatBody)

export const chatSample: Sample = {
  report: {
    trace: {
      format: "openai",
      id: null,
      task: "Where is my order #5521? It was due yesterday.",
      outcome: "Thanks, that helps.",
      success: null,
      events: chatEvents.length,
      agents: ["assistant"],
      skipped: 0,
      redactions: {}
    },
    mode: "quick",
    model: "gpt-4o-mini",
    severity: "none",
    confidence: 0.74,
    summary: "A short support exchange: the assistant looked the order up before answering and the user's question was resolved. None of the lenses found a failure mode.",
    decisive_step: null,
    checks: [],
    failures: [],
    findings: [],
    interventions: [],
    patterns: [
      {
        pattern: "psych_safety",
        friendly: "Edmondson Psychological Safety",
        status: "ok",
        error: null,
        cached: false,
        signals: signals({ errors: 0 }),
        playbooks: [],
        detection: { severity: "none" }
      },
      {
        pattern: "trust_triangle",
        friendly: "Trust Triangle",
        status: "ok",
        error: null,
        cached: false,
        signals: signals({ claims_checked: 1 }),
        playbooks: [],
        detection: { severity: "none" }
      }
    ],
    triage: [
      { pattern: "psych_safety", friendly: "Edmondson Psychological Safety", score: 0.45, chosen: true, reasons: ["a user and one assistant"], skipped: null },
      { pattern: "trust_triangle", friendly: "Trust Triangle", score: 0.4, chosen: true, reasons: ["a claim answered from a tool result"], skipped: null },
      { pattern: "lencioni", friendly: "Lencioni Five Dysfunctions", score: 0.1, chosen: false, reasons: ["a single agent"], skipped: "max_patterns (2) reached" }
    ],
    coverage: { patterns_run: 2, patterns_failed: 0, patterns_skipped: 1, events: chatEvents.length, events_cited: 0 },
    usage: { llm_calls: 2, input_tokens: 3_120, cached_input_tokens: 0, output_tokens: 410, elapsed_ms: 2_480, estimated_tokens: 4_000, budget_tokens: null },
    cached: false,
    generated_at: "2026-11-23T18:40:00.000Z"
  },
  context: { events: chatEvents, artifact: undefined, body: chatBody }
}

/** The chat sample with one finding citing `messages[4]`, to check what a chat trace's findings carry. */
export const chatWithFinding = (): Sample => {
  const event = at(chatEvents, chatEvents.findIndex((candidate) => candidate.source === "messages[4]"))
  const index = chatEvents.indexOf(event)
  return {
    report: {
      ...chatSample.report,
      severity: "low",
      findings: [{
        pattern: "trust_triangle",
        id: "f1",
        title: "An apology without a reason",
        severity: "low",
        confidence: 0.55,
        explanation: "The assistant apologised for the delay without saying what caused it.",
        playbook: null,
        evidence: [{ ref: "messages[4]", quote: "Sorry for the delay!", source: event.source, event: index, actor: event.actor }],
        corroborated_by: []
      }],
      coverage: { ...chatSample.report.coverage, events_cited: 1 }
    },
    context: chatSample.context
  }
}
