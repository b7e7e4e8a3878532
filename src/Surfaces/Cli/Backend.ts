/**
 * What the `svc` commands ask of the service, in one interface with two implementations: in this
 * process (Local.ts: the service's own Layers, config and providers, the guards run per call) or
 * against a running service (Remote.ts: the typed HttpApi client). Both return the same values for
 * the same input, so a command prints the same output either way. Failures carry the service's
 * error kind (`{detail:{error}}` over HTTP) and its message; `exitCodeOfKind` (ExitCodes.ts) turns
 * a kind into the process's exit code (DECISIONS §14).
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { errorKinds, refusalOf } from "../../Errors.js"
import type { Detection } from "../../Catalogue/Detection.js"
import type { Mode } from "../../Catalogue/Resources.js"
import type { ChecksResponse } from "../../Contract/DiagnoseContract.js"
import type { DiagnoseReport, ReportContext } from "../../Contract/DiagnoseReport.js"
import type { Run, RunList, RunWithReport, SubmitRunsResponse } from "../../Contract/RunsContract.js"
import type { ProblemListParams, RunFilterParams, RunListParams } from "../../Contract/Queries.js"
import type { CompareParams, Digest, Problem, ProblemComparison, ProblemDetail, ProblemList, ProblemUpdate } from "../../Contract/ProblemsContract.js"
import type { Rendered } from "../../Diagnose/Render/Outputs.js"
import type { DiagnoseOutputName } from "../../Registry/Outputs.js"

/**
 * A command that could not finish. `kind` is the service's error kind (validation_error,
 * llm_resolution_error, ...) or one of the CLI's own: `usage` (bad arguments, a file that cannot
 * be read), `unreachable` (no service answers at --url), `unexpected`.
 */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly kind: string; readonly message: string }> {}

/**
 * A command's flags decoded by the contract's query schema (the one REST's query and MCP's arguments
 * decode by): a refusal is the validation_error the service would answer with.
 */
export const decodeFlags = <A, I>(schema: Schema.Schema<A, I>, flags: unknown): Effect.Effect<A, CliFailure> =>
  Effect.mapError(Schema.decodeUnknown(schema)(flags), (error) => new CliFailure({ kind: errorKinds.ValidationError.kind, message: refusalOf(error).message }))

/** The response body of an analysis (`POST /v1/analyze/{name}`). */
export interface AnalyzeAnswer {
  readonly pattern: string
  readonly mode: Mode
  readonly model: string
  readonly detection: Detection
  readonly cached: boolean
}

export interface DiagnoseAnswer {
  readonly report: DiagnoseReport
  /** The response body as served (`{report}`), for the JSON output. */
  readonly body: unknown
  /** The normalized events, for the renderers that show the run (markdown, html). */
  readonly events: ReportContext["events"]
}

export type Body = Record<string, unknown> | Array<unknown>

/** A request body: `{trace, ...options}` (Input.envelopeOf). */
export type Envelope = Record<string, unknown>

/** A value as the command reads it, and the response body as served (printed as it is). */
export interface Served<A> {
  readonly value: A
  readonly body: unknown
}

/** What `svc runs import` did: runs new to the store, runs it already held, lines refused. */
export interface ImportOutcome {
  readonly imported: number
  readonly existing: number
  readonly refused: ReadonlyArray<{ readonly line: number; readonly message: string }>
}

/** Why `svc runs import` does not take --url. */
export const REGROUP_IS_LOCAL =
  "svc problems regroup rewrites the problems of this environment's store (SVC_HOME/svc.db or SVC_DATABASE_URL), and a service has no regroup route: run it without --url where the service's store is configured"

export const IMPORT_IS_LOCAL =
  "svc runs import writes to the store of this environment (SVC_HOME/svc.db), and a service has no import route: run it without --url where the service's store is configured (the same SVC_HOME)"

/**
 * The runs of DECISIONS §17, in the caller's scope. In-process there are no workers: a run
 * submitted here waits in the store (SVC_HOME/svc.db) for the workers of a
 * `svc serve` on the same store.
 */
export interface RunsBackend {
  /** One request (`POST /v1/runs`); `text`: the file as read, for the trace file's lines (SARIF). */
  readonly submit: (envelope: Envelope, text: string) => Effect.Effect<Served<typeof SubmitRunsResponse.Type>, CliFailure>
  /** One page (`GET /v1/runs`). */
  readonly list: (query: typeof RunListParams.Type) => Effect.Effect<typeof RunList.Type, CliFailure>
  readonly get: (id: string) => Effect.Effect<Served<typeof RunWithReport.Type>, CliFailure>
  /** A done run's report in an output of the registry, rendered by the renderers of diagnose. */
  readonly report: (id: string, output: DiagnoseOutputName, artifact: string | undefined) => Effect.Effect<Rendered, CliFailure>
  readonly retry: (id: string) => Effect.Effect<Served<Run>, CliFailure>
  /** Queues a run again with its lenses (`POST /v1/runs/{id}/explain`, DECISIONS §24). */
  readonly explain: (id: string) => Effect.Effect<Served<Run>, CliFailure>
  /** Re-queues every run of the scope in this state; how many. */
  readonly retryAll: (status: "failed" | "skipped") => Effect.Effect<number, CliFailure>
  /** The runs as JSON Lines (`GET /v1/runs/export`), newest first. */
  readonly exportLines: (filter: typeof RunFilterParams.Type) => Effect.Effect<string, CliFailure>
  /** Restores exported lines into the store (in-process only: a service has no import route). */
  readonly importLines: (lines: ReadonlyArray<string>) => Effect.Effect<ImportOutcome, CliFailure>
}

/** The problems of DECISIONS §19, in the caller's scope (in this process: the store of SVC_HOME). */
export interface ProblemsBackend {
  readonly list: (query: typeof ProblemListParams.Type) => Effect.Effect<typeof ProblemList.Type, CliFailure>
  readonly get: (id: string) => Effect.Effect<ProblemDetail, CliFailure>
  readonly update: (id: string, update: typeof ProblemUpdate.Type) => Effect.Effect<Problem, CliFailure>
  readonly merge: (id: string, into: string) => Effect.Effect<Problem, CliFailure>
  readonly detach: (id: string, runId: string) => Effect.Effect<Problem, CliFailure>
  readonly compare: (query: typeof CompareParams.Type) => Effect.Effect<typeof ProblemComparison.Type, CliFailure>
  readonly digest: Effect.Effect<typeof Digest.Type, CliFailure>
  /** Rebuilds a scope's problems under DECISIONS §24 (in-process only: a service has no regroup route); `scope`: the key name whose scope, none: the caller's. */
  readonly regroup: (scope: string | undefined) => Effect.Effect<{ readonly runs: number; readonly problemsBefore: number; readonly problemsAfter: number; readonly kept: number }, CliFailure>
}

export interface Backend {
  /** In-process, or the service's address. */
  readonly where: string
  /**
   * The most bytes the command reads of a trace (and of a --hints file): SVC_API_MAX_BODY_BYTES,
   * as a request body would be; against a service, this environment's (its default unless set),
   * and the service's own limit counts too.
   */
  readonly readLimit: number
  /** `body`: the response as served, printed as it is (against a service, after the typed client checked it). */
  readonly analyze: (slug: string, envelope: Envelope) => Effect.Effect<{ readonly answer: AnalyzeAnswer; readonly body: unknown }, CliFailure>
  /** `events`: whether the renderer needs the normalized events (remote: one more request). */
  readonly diagnose: (envelope: Envelope, events: boolean) => Effect.Effect<DiagnoseAnswer, CliFailure>
  /** The checks alone (`POST /v1/checks`, DECISIONS §23). */
  readonly check: (envelope: Envelope) => Effect.Effect<Served<ChecksResponse>, CliFailure>
  readonly normalize: (envelope: Envelope) => Effect.Effect<unknown, CliFailure>
  readonly patterns: Effect.Effect<unknown, CliFailure>
  readonly pattern: (name: string, part: "record" | "playbooks" | "citations" | "composition") => Effect.Effect<unknown, CliFailure>
  readonly runs: RunsBackend
  readonly problems: ProblemsBackend
}
