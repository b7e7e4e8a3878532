/**
 * What the `svc` commands ask of the service, in one interface with two implementations: in this
 * process (Local.ts: the service's own Layers, config and providers, the guards run per call) or
 * against a running service (Remote.ts: the typed HttpApi client). Both return the same values for
 * the same input, so a command prints the same output either way. Failures carry the service's
 * error kind (`{detail:{error}}` over HTTP) and its message; `exitCodeOfKind` (ExitCodes.ts) turns
 * a kind into the process's exit code (DECISIONS §14).
 */
import { Data, type Effect } from "effect"
import type { Detection } from "../../Catalogue/Detection.js"
import type { Mode } from "../../Catalogue/Resources.js"
import type { DiagnoseReport, ReportContext } from "../../Contract/DiagnoseReport.js"

/**
 * A command that could not finish. `kind` is the service's error kind (validation_error,
 * llm_resolution_error, ...) or one of the CLI's own: `usage` (bad arguments, a file that cannot
 * be read), `unreachable` (no service answers at --url), `unexpected`.
 */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly kind: string; readonly message: string }> {}

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
  readonly normalize: (envelope: Envelope) => Effect.Effect<unknown, CliFailure>
  readonly patterns: Effect.Effect<unknown, CliFailure>
  readonly pattern: (name: string, part: "record" | "playbooks" | "citations" | "composition") => Effect.Effect<unknown, CliFailure>
}
