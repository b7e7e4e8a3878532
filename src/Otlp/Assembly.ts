/**
 * OTLP traces completed and made runs (DECISIONS §18), by every `svc serve`: a trace is complete
 * when its root ended and nothing arrived for SVC_OTLP_QUIET_SECONDS, or SVC_OTLP_MAX_AGE_SECONDS
 * after its first span; one replica claims it with a lease (Store/Otlp.ts), reads its spans, and
 * submits them as one run through RunsService (the runs' one path: admission, redaction, limits,
 * the same run for the same trace) as a typed `SubmitRunRequest`: the spans as the OTLP/JSON
 * document the span readers take, its format known (no body is read, nothing is detected among the
 * other formats), queued or `skipped` as SVC_OTLP_DIAGNOSE decides:
 *
 * - `failed` (default): queued when a span has an error status or an `exception` event, the
 *   root says `svc.diagnose=true`, or a check finds something at medium or above (DECISIONS §23:
 *   a tool returned an error value and the agent said it was done, no span marked); else
 *   `skipped: not_failed`;
 * - `all`: every trace queued;
 * - `sample:<rate>`: failures, and the successes whose trace id hashes under the rate (the same
 *   on every replica); else `skipped: sampled_out`.
 *
 * A skipped run is diagnosed on demand (retry). A trace with no GenAI, OpenInference or tool span
 * (an instrumented web service's ordinary request) is no agent's run: it is counted and dropped.
 * A replica that dies holding a claim leaves it to lapse; another claims it again, and the same
 * trace submitted twice is the one run.
 *
 * One trace never stops the others (issue 47): the walks over parent links are cycle-safe, and a
 * trace whose assembly dies (a throw, a defect) is logged with its cause, counted
 * (`svc_background_errors_total{loop="assembly"}`) and given back; at its third claim (a claim
 * whose process died counts) it becomes a run `failed: assembly_error`, its spans kept: the run's
 * retry assembles them again (Runs/Workers.ts, through `OtlpReassemblyLive`).
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Schedule from "effect/Schedule"
import { createHash, randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { Caller, callerFrom } from "../Auth/Caller.js"
import { Scopes } from "../Auth/Scopes.js"
import { severityRank } from "../Catalogue/Severity.js"
import { Checks } from "../Checks/Checks.js"
import { AppConfig, type OtlpDiagnose } from "../Config.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"
import { DEFAULT_MAX_PATTERNS } from "../Contract/Options.js"
import { ASSEMBLY_ERROR, MAX_LABEL_VALUE } from "../Contract/RunsContract.js"
import { makeSlices } from "../Lifecycle/Slices.js"
import { containRound, defectSummary, reportBackgroundError } from "../Observability/Background.js"
import { otlpMetrics, runMetrics } from "../Observability/Metrics.js"
import { DEFAULT_MODE } from "../Registry/Modes.js"
import { newRunId, RunsService, type StoredRequest } from "../Runs/RunsService.js"
import { TraceReassembly } from "../Runs/Reassembly.js"
import type { OtlpStoreShape, ClaimedTrace } from "../Store/Otlp.js"
import { RunStoreAccess } from "../Store/RunStoreAccess.js"
import type { NormalizedTrace } from "../Traces/Model.js"
import type { AnyValue, InstrumentationScope, KeyValue, LogRecord, OtlpDocument, Resource, ResourceLogs, ResourceSpans, Span } from "./Wire/Model.js"
import { isAgentSpan, isLocalRoot, stringAttribute } from "./Spans.js"

/** Traces claimed per round (a claim lasts SVC_RUN_LEASE_SECONDS, as a worker's on a run, before another replica may take it). */
const CLAIM_BATCH = 50
/** Done traces are kept (late spans are counted against them) as long as runs are. */
const DAY_MS = 86_400_000
/** Claims of a trace after which it is given up: made a run `failed: assembly_error` instead of assembled again. */
export const MAX_ASSEMBLY_ATTEMPTS = 3

/** A group of spans as the receiver kept it. */
interface SpanGroup {
  readonly resource: Resource
  readonly scope?: InstrumentationScope | null
  readonly schemaUrl?: string
  readonly spans?: ReadonlyArray<Span>
  readonly logRecords?: ReadonlyArray<LogRecord>
}

/** What decides a trace's run: its root, whether it failed, its labels, whether it is an agent's. */
export interface TraceSummary {
  readonly failed: boolean
  readonly agent: boolean
  readonly labels: Readonly<Record<string, string>>
}


const truthy = (value: AnyValue | undefined): boolean =>
  value !== undefined && (("boolValue" in value && value.boolValue) || ("stringValue" in value && value.stringValue.toLowerCase() === "true"))
const attribute = (attributes: ReadonlyArray<KeyValue>, key: string): AnyValue | undefined => attributes.find((each) => each.key === key)?.value

/**
 * Reads a complete trace's spans (DECISIONS §18): its root is the span without a parent here (the
 * earliest, when several), else the top ancestor present of its agent spans; labels come from the
 * root's resource and the agent nearest the root.
 */
export const summarize = (spans: ReadonlyArray<{ readonly span: Span; readonly resource: Resource }>, logs: number): TraceSummary => {
  const byId = new Map(spans.map((each) => [each.span.spanId, each]))
  const agentSpans = spans.filter((each) => isAgentSpan(each.span))
  let failed = false
  for (const { span } of spans) {
    if (span.status?.code === 2 || span.events.some((event) => event.name === "exception")) failed = true
  }
  // up the parent links to the top ancestor present; a parent cycle (a span its own parent, or
  // any loop) stops where it closes: the walk visits each span once
  const topOf = (start: { readonly span: Span; readonly resource: Resource }) => {
    const visited = new Set<string>([start.span.spanId])
    let current = start
    for (;;) {
      const parent = current.span.parentSpanId === undefined || isLocalRoot(current.span) ? undefined : byId.get(current.span.parentSpanId)
      if (parent === undefined || visited.has(parent.span.spanId)) return current
      visited.add(parent.span.spanId)
      current = parent
    }
  }
  const roots = spans.filter((each) => isLocalRoot(each.span)).sort((a, b) => (BigInt(a.span.startTimeUnixNano) < BigInt(b.span.startTimeUnixNano) ? -1 : 1))
  const first = agentSpans[0]
  const root = roots[0] ?? (first === undefined ? spans[0] : topOf(first))
  if (root !== undefined && truthy(attribute(root.span.attributes, "svc.diagnose"))) failed = true
  // the agent nearest the root: breadth first from it
  let agent: string | undefined
  if (root !== undefined) {
    const children = new Map<string, Array<Span>>()
    for (const { span } of spans) {
      if (span.parentSpanId === undefined) continue
      const list = children.get(span.parentSpanId)
      if (list === undefined) children.set(span.parentSpanId, [span])
      else list.push(span)
    }
    // each span queued once: under a parent cycle the children links loop back (a self-parent span is its own child)
    const queue: Array<Span> = [root.span]
    const queued = new Set<string>([root.span.spanId])
    for (let index = 0; index < queue.length && agent === undefined; index++) {
      const span = queue[index]
      if (span === undefined) break
      agent = stringAttribute(span.attributes, "gen_ai.agent.name")
      for (const child of children.get(span.spanId) ?? []) {
        if (queued.has(child.spanId)) continue
        queued.add(child.spanId)
        queue.push(child)
      }
    }
    agent ??= agentSpans.map((each) => stringAttribute(each.span.attributes, "gen_ai.agent.name")).find((name) => name !== undefined)
  }
  const resource = root?.resource.attributes ?? []
  const labels: Record<string, string> = {}
  const put = (key: string, value: string | undefined) => {
    // U+0000 dropped: a label is stored as text, which cannot hold it (RunLabels refuses it in a request)
    const kept = value?.replaceAll("\u0000", "").slice(0, MAX_LABEL_VALUE)
    if (kept !== undefined && kept.length > 0) labels[key] = kept
  }
  put("service", stringAttribute(resource, "service.name"))
  put("agent", agent)
  put("version", stringAttribute(resource, "service.version"))
  put("environment", stringAttribute(resource, "deployment.environment.name") ?? stringAttribute(resource, "deployment.environment"))
  return { failed, agent: agentSpans.length > 0 || logs > 0, labels }
}

/** A trace id's place in [0, 1): the first 32 bits of its SHA-256 (the same on every replica). */
export const sampleOf = (traceId: string): number => createHash("sha256").update(traceId).digest().readUInt32BE(0) / 2 ** 32

/** Queued (undefined), or skipped for the reason SVC_OTLP_DIAGNOSE gives. */
export const decide = (policy: OtlpDiagnose, failed: boolean, traceId: string): "not_failed" | "sampled_out" | undefined => {
  if (failed || policy._tag === "all") return undefined
  if (policy._tag === "failed") return "not_failed"
  return sampleOf(traceId) < policy.rate ? undefined : "sampled_out"
}

/** Whether the checks make a trace failed for SVC_OTLP_DIAGNOSE (DECISIONS §23): a finding at medium or above. */
export const failedByChecks = (findings: ReadonlyArray<CheckFinding>): boolean =>
  findings.some((finding) => severityRank(finding.severity) >= severityRank("medium"))

/** A claimed trace's groups as the OTLP/JSON document the span readers take, and its summary. */
export const documentOf = (groups: ReadonlyArray<{ readonly kind: string; readonly body: string }>) => {
  const resourceSpans: Array<ResourceSpans> = []
  const resourceLogs: Array<ResourceLogs> = []
  const spans: Array<{ readonly span: Span; readonly resource: Resource }> = []
  const seen = new Set<string>()
  let logs = 0
  for (const group of groups) {
    const parsed: unknown = JSON.parse(group.body)
    if (!isGroup(parsed)) continue
    const scope = {
      ...(parsed.scope === undefined || parsed.scope === null ? {} : { scope: parsed.scope }),
      ...(parsed.schemaUrl === undefined ? {} : { schemaUrl: parsed.schemaUrl })
    }
    if (parsed.spans !== undefined) {
      // a span sent twice in different batches (a retry re-batched) is kept once
      const fresh: Array<Span> = []
      for (const span of parsed.spans) {
        if (seen.has(span.spanId)) continue
        seen.add(span.spanId)
        fresh.push(span)
        spans.push({ span, resource: parsed.resource })
      }
      resourceSpans.push({ resource: parsed.resource, scopeSpans: [{ ...scope, spans: fresh }] })
    }
    if (parsed.logRecords !== undefined) {
      // a record sent twice (a retry re-batched) is kept once: the same record is the same text
      const fresh = parsed.logRecords.filter((record) => {
        const key = JSON.stringify(record)
        if (seen.has(key)) return false
        seen.add(key)
        return true
      })
      logs += fresh.length
      resourceLogs.push({ resource: parsed.resource, scopeLogs: [{ ...scope, logRecords: fresh }] })
    }
  }
  const document: OtlpDocument = { resourceSpans, resourceLogs }
  return { document, spans, logs }
}

/**
 * The request a run of a trace that could not be assembled keeps: the trace's id and nothing read
 * (no events: what marks it for assembly on its retry), with the options a trace's run gets.
 */
export const unassembledRequest = (trace: ClaimedTrace): StoredRequest => ({
  key_name: trace.keyName,
  format: "otel",
  trace: { id: trace.traceId, task: "", outcome: "", success: null, agents: [], events: [], skipped: 0 },
  options: { mode: DEFAULT_MODE, model: null, hints: {}, patterns: null, max_patterns: DEFAULT_MAX_PATTERNS, budget_tokens: null },
  redactions: {}
})

/** The one run of a trace given up in its scope, however often it is given up (a crash after the run was made). */
const unassembledKey = (traceId: string): string => createHash("sha256").update(`otlp-assembly\u0000${traceId}`).digest("hex")

/** The workers' way to assemble a given-up trace's kept spans again, on its run's retry: the document and labels assembly makes. */
export const OtlpReassemblyLive = Layer.succeed(TraceReassembly, {
  document: (groups) =>
    Effect.sync(() => {
      const { document, logs, spans } = documentOf(groups)
      return { document, labels: summarize(spans, logs).labels }
    })
})

/** The groups this module reads were written by the receiver (Receiver.ts): their shape is checked, not trusted. */
const isGroup = (value: unknown): value is SpanGroup =>
  Predicate.isRecord(value) && Predicate.isRecord(value["resource"]) && Array.isArray(value["resource"]["attributes"]) &&
  (Array.isArray(value["spans"]) || Array.isArray(value["logRecords"]))

export const OtlpAssemblyLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const { otlp, runs: runSettings } = yield* AppConfig
    const access = yield* RunStoreAccess
    const runs = yield* RunsService
    const checks = yield* Checks
    const scopes = yield* Scopes
    const owner = `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`
    const quietMs = otlp.quietSeconds * 1000
    const maxAgeMs = otlp.maxAgeSeconds * 1000

    /** One claimed trace made a run (or dropped), and marked done. */
    const assembleOnce = (store: OtlpStoreShape, trace: ClaimedTrace) =>
      Effect.gen(function*() {
        const { document, logs, spans } = documentOf(yield* store.groups(trace.scope, trace.traceId))
        const summary = summarize(spans, logs)
        let runId: string | null = null
        if (!summary.agent) {
          otlpMetrics.trace("no_agent")
        } else {
          // Decided on the trace as the run keeps it (normalized and redacted once, in submitRun), with the
          // checks of its scope; they run only when they can change the decision (measured: docs/otlp.md).
          // the run is the key's that sent the spans (its scope, redaction and checks)
          const caller = yield* callerFrom(scopes, trace.keyName)
          let skipped: ReturnType<typeof decide> = undefined
          const skip = (admitted: NormalizedTrace) =>
            Effect.map(
              summary.failed || otlp.diagnose._tag === "all" ? Effect.succeed(summary.failed) : Effect.map(checks.run(admitted), failedByChecks),
              (failed) => {
                skipped = decide(otlp.diagnose, failed, trace.traceId)
                return skipped
              }
            )
          const submitted = yield* Effect.provideService(runs.submitRun({ document, labels: summary.labels, skip }), Caller, caller).pipe(
            Effect.map((outcome) => outcome.runs[0]?.id ?? null),
            // the run cannot be made (the trace is over the limits, holds nothing readable, or its key
            // is gone): dropped, and the log says why; an unavailable store leaves the claim to lapse
            Effect.catchIf(
              (error) => error._tag !== "StoreUnavailable",
              (error) => Effect.as(Effect.logWarning("an OTLP trace could not become a run").pipe(Effect.annotateLogs({ trace_id: trace.traceId, reason: error.message })), null)
            )
          )
          runId = submitted
          otlpMetrics.trace(submitted === null ? "refused" : skipped ?? "queued")
        }
        const now = yield* Clock.currentTimeMillis
        yield* store.complete(trace.scope, trace.traceId, owner, runId, now)
      })

    /** A trace given up: a run `failed: assembly_error` made of it (once), and the trace marked failed with its spans kept. */
    const giveUp = (store: OtlpStoreShape, trace: ClaimedTrace, message: string) =>
      Effect.gen(function*() {
        const runStore = yield* access.store
        const now = yield* Clock.currentTimeMillis
        const made = yield* runStore.submit({
          id: newRunId(),
          scope: trace.scope,
          traceId: trace.traceId,
          externalId: null,
          labels: {},
          source: "otlp",
          dedupeKey: unassembledKey(trace.traceId),
          request: JSON.stringify(unassembledRequest(trace)),
          lines: null,
          submittedAt: now,
          failed: { error: ASSEMBLY_ERROR, message }
        }).pipe(Effect.catchTag("ExternalIdConflict", () => Effect.dieMessage("a run without an external id met an external id conflict")))
        if (made.created) runMetrics.ended("failed")
        otlpMetrics.trace(ASSEMBLY_ERROR)
        yield* store.fail(trace.scope, trace.traceId, owner, made.run.id, now)
        yield* Effect.logWarning("an OTLP trace was given up: its run failed with assembly_error (its retry assembles it again)").pipe(
          Effect.annotateLogs({ trace_id: trace.traceId, run_id: made.run.id, attempts: trace.attempts })
        )
      })

    /**
     * One claimed trace, a defect in it contained: logged with its cause, counted, and the trace
     * given back for another attempt, or at the last one given up; a trace claimed more often (its
     * process died assembling it each time) is given up without being read. A store failure ends
     * the round as before (the claim lapses and the trace is taken again).
     */
    const assemble = (store: OtlpStoreShape, trace: ClaimedTrace) =>
      trace.attempts > MAX_ASSEMBLY_ATTEMPTS
        ? Effect.zipRight(
          reportBackgroundError("assembly", "an OTLP trace was claimed again and again without completing", Cause.empty, { trace_id: trace.traceId, attempts: trace.attempts }),
          giveUp(store, trace, `the trace was claimed ${trace.attempts} times and its assembly never completed (the process stopped while assembling it)`)
        )
        : assembleOnce(store, trace).pipe(
          Effect.catchAllCause((cause) => {
            if (!Cause.isDie(cause)) return Effect.failCause(cause)
            const reported = reportBackgroundError("assembly", "an OTLP trace could not be assembled", cause, { trace_id: trace.traceId, attempt: trace.attempts })
            return Effect.zipRight(
              reported,
              trace.attempts >= MAX_ASSEMBLY_ATTEMPTS
                ? giveUp(store, trace, `its spans could not be assembled (${trace.attempts} attempts): ${defectSummary(cause)}`)
                : store.release(trace.scope, trace.traceId, owner)
            )
          })
        )

    // in slices with turns of the event loop between them (Lifecycle/Slices.ts): a backlog of due
    // traces held every probe and request until the round ended
    const round = (store: OtlpStoreShape) =>
      Effect.gen(function*() {
        const slices = yield* makeSlices()
        for (;;) {
          const now = yield* Clock.currentTimeMillis
          const claimed = yield* store.claimComplete(owner, now, { quietMs, maxAgeMs, leaseMs: runSettings.leaseSeconds * 1000, limit: CLAIM_BATCH })
          for (const trace of claimed) {
            yield* assemble(store, trace)
            yield* slices.next
          }
          if (claimed.length < CLAIM_BATCH) return
        }
      })

    const upkeep = (store: OtlpStoreShape) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* store.purge(now - runSettings.retentionDays * DAY_MS)
        otlpMetrics.pending(yield* store.pendingTraces)
      })

    // a trace is looked at within a third of its quiet window (at least every 5 s, at most 4 times a second)
    const every = Duration.millis(Math.min(5_000, Math.max(250, Math.floor(quietMs / 3))))
    const start = Effect.gen(function*() {
      // The store once something opened it: an OTLP request, the runs API, or the workers, which
      // open an existing store at start (SVC_WORKERS > 0). Not opened here: a process that never
      // uses the store never loads the driver nor takes SQLite's locks.
      yield* access.whenOpen
      const store = yield* access.otlp
      // SQLite is one process's: a claim in it is a dead process's (PostgreSQL's lapse, as runs' leases do)
      const released = (yield* access.store).shared ? 0 : yield* store.releaseAll
      if (released > 0) yield* Effect.logWarning("OTLP traces a previous process was completing are open again").pipe(Effect.annotateLogs({ traces: released }))
      yield* round(store).pipe(
        containRound("assembly", "OTLP trace assembly failed; trying again"),
        Effect.repeat(Schedule.spaced(every)),
        Effect.forkScoped
      )
      yield* upkeep(store).pipe(
        containRound("retention", "OTLP upkeep failed"),
        Effect.repeat(Schedule.spaced(Duration.minutes(1))),
        Effect.forkScoped
      )
    })
    yield* start.pipe(
      Effect.tapErrorCause((cause) => Effect.logWarning("OTLP trace assembly could not start; trying again", cause)),
      Effect.retry(Schedule.spaced(Duration.seconds(5))),
      Effect.forkScoped
    )
  })
)
