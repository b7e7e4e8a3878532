/**
 * The problems API's effects (DECISIONS §19), one for every surface (REST, MCP, the CLI): list,
 * get, set a status, merge, detach, compare, the digest and the alert deliveries, each in the
 * caller's data scope (another scope's problem is not found: 404). Problems are made by the
 * workers' finish (Store/Problems.ts), never here. While the store cannot be read or written every
 * effect fails with 503 `store_unavailable`.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Caller, callerScope } from "../Auth/Caller.js"
import { Catalogue } from "../Catalogue/Catalogue.js"
import { shownUrl } from "../Config/Alerts.js"
import {
  type AlertDelivery,
  type CompareParams,
  type Digest,
  type Problem,
  type ProblemComparison,
  type ProblemDetail,
  type ProblemUpdate,
  RECENT_DAYS
} from "../Contract/ProblemsContract.js"
import type { PageParams, ProblemListParams } from "../Contract/Queries.js"
import { DEFAULT_PAGE } from "../Contract/Statuses.js"
import { type InternalError, NotFound, type StoreUnavailable, ValidationError } from "../Errors.js"
import { type CompareSide, type DeliveryRecord, type ProblemDetail as StoredDetail, type RegroupOutcome, type RegroupRun } from "../Store/Problems.js"
import { DAY_MS, type ProblemRecord } from "./Model.js"
import { Checks } from "../Checks/Checks.js"
import { decisiveStepOf } from "../Diagnose/Merge.js"
import { failuresOf, problemFailuresOf, wireFailure } from "./Failures.js"
import { severityAt, severityRank } from "../Catalogue/Severity.js"
import { inStore, RunStoreAccess } from "../Store/RunStoreAccess.js"
import type { StoredRun } from "../Store/Runs.js"
import { explanationOf } from "./Explanation.js"
import { readPage, readStoredReport, readStoredRequest } from "../Runs/RunsService.js"

/** What every effect may meet: the store, and a caller no key was verified for. */
type Base = StoreUnavailable | InternalError

export interface ProblemsServiceShape {
  readonly list: (query: typeof ProblemListParams.Type) => Effect.Effect<{ readonly problems: ReadonlyArray<Problem>; readonly next_cursor: string | null }, ValidationError | Base, Caller>
  readonly get: (id: string) => Effect.Effect<ProblemDetail, NotFound | Base, Caller>
  readonly update: (id: string, update: typeof ProblemUpdate.Type) => Effect.Effect<Problem, NotFound | ValidationError | Base, Caller>
  readonly merge: (id: string, into: string) => Effect.Effect<Problem, NotFound | ValidationError | Base, Caller>
  readonly detach: (id: string, runId: string) => Effect.Effect<Problem, NotFound | ValidationError | Base, Caller>
  readonly compare: (query: typeof CompareParams.Type) => Effect.Effect<typeof ProblemComparison.Type, ValidationError | Base, Caller>
  readonly digest: Effect.Effect<typeof Digest.Type, Base, Caller>
  /**
   * Rebuilds the caller's scope's problems under DECISIONS §24 (`svc problems regroup`): the checks
   * run again on every done run's stored trace, its report's checks and failures rewritten, and
   * the problems made again from the failures (Store/Problems.ts `regroup`: ids, statuses and
   * merges carry over; no alert).
   */
  readonly regroup: Effect.Effect<RegroupOutcome, Base, Caller>
  readonly deliveries: (
    query: typeof PageParams.Type
  ) => Effect.Effect<{ readonly deliveries: ReadonlyArray<typeof AlertDelivery.Type>; readonly next_cursor: string | null }, ValidationError | Base, Caller>
}

export class ProblemsService extends Context.Tag("ProblemsService")<ProblemsService, ProblemsServiceShape>() {}

const iso = (ms: number): string => new Date(ms).toISOString()
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms))

/** A store's problem as the API's Problem. */
export const wireProblem = (record: ProblemRecord): Problem => ({
  id: record.id,
  title: record.title,
  normalized_title: record.normalizedTitle,
  cites: record.cites,
  patterns: record.patterns,
  check: record.check,
  playbook: record.playbook,
  severity: record.severity,
  status: record.status,
  run_count: record.runCount,
  first_seen: iso(record.firstSeen),
  last_seen: iso(record.lastSeen),
  resolved_at: isoOrNull(record.resolvedAt),
  resolved_in_version: record.resolvedInVersion,
  regressed_at: isoOrNull(record.regressedAt)
})

const wireDelivery = (record: DeliveryRecord): typeof AlertDelivery.Type => ({
  id: record.id,
  event: record.event,
  problem_id: record.problemId,
  run_id: record.runId,
  url: shownUrl(record.url),
  state: record.state,
  attempts: record.attempts,
  last_status: record.lastStatus,
  last_error: record.lastError,
  created_at: iso(record.createdAt),
  next_at: record.state === "pending" ? iso(record.nextAt) : null,
  delivered_at: isoOrNull(record.deliveredAt)
})

/**
 * A problem's rate under one label value: its runs over the traces received with the value, each
 * diagnosed run standing for the traces sampled out beside it (DECISIONS §19's denominators).
 */
export const rateOf = (runs: number, side: CompareSide): number | null => {
  if (side.traces === 0) return null
  const weight = side.diagnosed === 0 ? 1 : (side.diagnosed + side.sampledOut) / side.diagnosed
  return Math.min(1, (runs * weight) / side.traces)
}

const notFound = (id: string) => new NotFound({ message: `no problem ${JSON.stringify(id.slice(0, 80))} in this key's scope` })


export const ProblemsServiceLive = Layer.effect(
  ProblemsService,
  Effect.gen(function*() {
    const access = yield* RunStoreAccess
    const catalogue = yield* Catalogue
    const checkRules = yield* Checks
    const catalogueOrder = catalogue.entries.map((entry) => entry.pattern.code.slug)

    /** The playbooks the examples' findings point to, most runs first, titled from the catalogue. */
    const interventionsOf = (detail: StoredDetail) => {
      const counts = new Map<string, { pattern: string; playbook: string; runs: number }>()
      for (const example of detail.examples) {
        const { check, playbook: named } = example.finding
        if (named === null) continue
        // a check's playbook is `<pattern>/<key>` (Checks/Check.ts); a lens finding's is its pattern's key
        const split = check !== undefined && check !== null ? named.indexOf("/") : -1
        const pattern = split > 0 ? named.slice(0, split) : example.finding.pattern
        const playbook = split > 0 ? named.slice(split + 1) : named
        const key = `${pattern}\u0000${playbook}`
        const entry = counts.get(key) ?? { pattern, playbook, runs: 0 }
        entry.runs += 1
        counts.set(key, entry)
      }
      return Array.from(counts.values())
        .sort((a, b) => b.runs - a.runs || a.playbook.localeCompare(b.playbook))
        .map((entry) => ({
          ...entry,
          title: catalogue.get(entry.pattern)?.pattern.playbooks.find((candidate) => candidate.key === entry.playbook)?.playbook.title ?? entry.playbook
        }))
    }

    const wireDetail = (detail: StoredDetail): ProblemDetail => ({
      ...wireProblem(detail),
      days: detail.days,
      labels: detail.labels,
      examples: detail.examples.map((example) => ({
        run_id: example.runId,
        seen_at: iso(example.seenAt),
        severity: example.severity,
        pattern: example.finding.pattern,
        title: example.finding.title,
        evidence: example.finding.evidence
      })),
      interventions: interventionsOf(detail),
      explanation: explanationOf(detail.exemplars),
      tokens: detail.tokens,
      fingerprints: detail.fingerprints
    })

    const list: ProblemsServiceShape["list"] = (query) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const { cursor, limit } = yield* readPage(query)
        const store = yield* access.problems
        // the decoded query is the store's filter (the same names; its page read above)
        const page = yield* inStore("problems.list", store.list(scope, query, limit, cursor))
        // each one's trend over the last days, read at once (a dashboard draws it without a request per problem)
        const today = Math.floor((yield* Clock.currentTimeMillis) / DAY_MS) * DAY_MS
        const days = Array.from({ length: RECENT_DAYS }, (_, index) => new Date(today - (RECENT_DAYS - 1 - index) * DAY_MS).toISOString().slice(0, 10))
        const recent = yield* inStore("problems.list", store.recentDays(page.problems.map((problem) => problem.id), days[0] ?? ""))
        return {
          problems: page.problems.map((problem) => {
            const counts = recent.get(problem.id)
            return { ...wireProblem(problem), recent: days.map((day) => counts?.get(day) ?? 0) }
          }),
          next_cursor: page.nextCursor
        }
      })

    const get: ProblemsServiceShape["get"] = (id) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.problems
        const found = yield* inStore("problems.get", store.get(scope, id))
        return Option.isNone(found) ? yield* notFound(id) : wireDetail(found.value)
      })

    const update: ProblemsServiceShape["update"] = (id, change) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        if (change.status !== "resolved" && change.resolved_in_version !== undefined && change.resolved_in_version !== null) {
          return yield* new ValidationError({ message: "resolved_in_version goes with status resolved" })
        }
        const store = yield* access.problems
        const now = yield* Clock.currentTimeMillis
        const updated = yield* inStore("problems.update", store.setStatus(scope, id, change.status, change.resolved_in_version ?? null, now))
        return Option.isNone(updated) ? yield* notFound(id) : wireProblem(updated.value)
      })

    const merge: ProblemsServiceShape["merge"] = (id, into) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.problems
        const outcome = yield* inStore("problems.merge", store.merge(scope, id, into, yield* Clock.currentTimeMillis))
        switch (outcome._tag) {
          case "Merged":
            return wireProblem(outcome.problem)
          case "NotFound":
            return yield* notFound(outcome.id)
          case "Same":
            // both ids lead to one problem: the same id, or one already merged into the other (two merges at once, A into B and B into A)
            return yield* new ValidationError({ message: "both ids lead to the same problem (one was already merged into the other): nothing to merge" })
        }
      })

    const detach: ProblemsServiceShape["detach"] = (id, runId) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.problems
        const detached = yield* inStore("problems.detach", store.detach(scope, id, runId, yield* Clock.currentTimeMillis))
        return Option.isNone(detached)
          ? yield* new NotFound({ message: `no run ${JSON.stringify(runId.slice(0, 80))} in problem ${JSON.stringify(id.slice(0, 80))} of this key's scope` })
          : wireProblem(detached.value)
      })

    const compare: ProblemsServiceShape["compare"] = (query) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        if (query.a === query.b) return yield* new ValidationError({ message: "a and b must be two different values" })
        const limit = query.limit ?? DEFAULT_PAGE
        const store = yield* access.problems
        const compared = yield* inStore("problems.compare", store.compare(scope, query.label, query.a, query.b, limit))
        const side = (value: CompareSide) => ({ value: value.value, traces: value.traces, diagnosed: value.diagnosed, sampled_out: value.sampledOut })
        return {
          label: query.label,
          a: side(compared.a),
          b: side(compared.b),
          problems: compared.rows.map((row) => ({
            problem: wireProblem(row.problem),
            a: { runs: row.a, rate: rateOf(row.a, compared.a) },
            b: { runs: row.b, rate: rateOf(row.b, compared.b) }
          }))
        }
      })

    const digest: ProblemsServiceShape["digest"] =
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.problems
        const data = yield* inStore("problems.digest", store.digest(scope, yield* Clock.currentTimeMillis))
        // each listed problem's verdict, from its exemplars (DECISIONS §24)
        const listed = Array.from(new Set([...data.created, ...data.regressed, ...data.recurring.map((entry) => entry.problem)].map((problem) => problem.id)))
        const verdicts: Record<string, string> = {}
        for (const id of listed) {
          const detail = yield* inStore("problems.digest", store.get(scope, id))
          const verdict = Option.isNone(detail) ? "" : explanationOf(detail.value.exemplars).verdict
          if (verdict.length > 0) verdicts[id] = verdict
        }
        return {
          verdicts,
          since: iso(data.since),
          until: iso(data.until),
          new: data.created.map(wireProblem),
          regressed: data.regressed.map(wireProblem),
          recurring: data.recurring.map((entry) => ({ problem: wireProblem(entry.problem), runs: entry.runs })),
          runs_finished: data.runs,
          tokens_spent: data.tokens
        }
      })

    const deliveries: ProblemsServiceShape["deliveries"] = (query) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const { cursor, limit } = yield* readPage(query)
        const store = yield* access.problems
        const page = yield* inStore("alerts.deliveries", store.deliveries(scope, limit, cursor))
        return { deliveries: page.deliveries.map(wireDelivery), next_cursor: page.nextCursor }
      })

    const regroup: ProblemsServiceShape["regroup"] =
      Effect.gen(function*() {
        const scope = yield* callerScope
        const runStore = yield* access.store
        const store = yield* access.problems
        const runs: Array<RegroupRun> = []
        let cursor: string | null = null
        do {
          const page: { readonly runs: ReadonlyArray<StoredRun>; readonly nextCursor: string | null } = yield* inStore("problems.regroup", runStore.listStored(scope, { status: "done" }, 200, cursor))
          for (const run of page.runs) {
            const request = readStoredRequest(run.request)
            const report = run.report === null ? undefined : readStoredReport(run.report)
            if (Either.isLeft(request) || report === undefined) continue
            const trace = request.right.trace
            // today's checks and failures on the kept trace and the lenses' kept findings
            const checks = yield* checkRules.run(trace)
            const decisive = decisiveStepOf(report.findings, trace, checks)
            const severity = severityAt(Math.max(0, ...report.findings.map((finding) => severityRank(finding.severity)), ...checks.map((check) => severityRank(check.severity))))
            const failures = failuresOf(trace, checks, report.findings, catalogueOrder, decisive?.event ?? null).map((failure) => wireFailure(failure))
            const rewritten = { ...report, checks, decisive_step: decisive, severity, failures }
            yield* inStore("problems.regroup", runStore.replaceReport(scope, run.id, JSON.stringify(rewritten), severity))
            runs.push({
              runId: run.id,
              traceId: run.traceId,
              labels: run.labels,
              seenAt: run.finishedAt ?? run.submittedAt,
              findings: problemFailuresOf(rewritten, trace),
              explained: report.usage.llm_calls > 0,
              tokens: report.usage.input_tokens + report.usage.output_tokens
            })
          }
          cursor = page.nextCursor
        } while (cursor !== null)
        return yield* inStore("problems.regroup", store.regroup(scope, runs, yield* Clock.currentTimeMillis))
      })

    return { list, get, update, merge, detach, compare, digest, deliveries, regroup } satisfies ProblemsServiceShape
  })
)
