/**
 * The diagnose report's outputs (DECISIONS §13), one entry each, in order: the first is the
 * service's default, and an `Accept` media type picks the first entry that has it (`*\/*` the
 * first of all). Everything that names the outputs derives from this list: `DiagnoseOutput`
 * (src/Contract/DiagnoseReport.ts; `?output=` in OpenAPI and the typed client), the diagnose responses in
 * OpenAPI (one content type each, src/Contract/DiagnoseContract.ts), content negotiation and
 * rendering in the REST handler, `svc diagnose --format` with its help and completions, and the
 * generated sections of docs/diagnose.md and docs/cli.md (src/Registry/Docs.ts).
 *
 * Adding an output: an entry here, its renderer in src/Diagnose/Render/, and the renderer's
 * loader in src/Diagnose/Render/Outputs.ts (which the compiler then asks for; renderers are
 * loaded on first use, so start-up and the typed client never carry them).
 *
 * Contract-safe: names, media types and words only (the typed client bundles it).
 */
import type { NonEmpty } from "./Entries.js"

export interface OutputEntry {
  readonly name: string
  /** The media type `Accept` names and OpenAPI lists. */
  readonly mediaType: string
  /** The response's Content-Type. */
  readonly contentType: string
  /** What the body is, for OpenAPI: the `{report}` envelope, text, or another JSON document. */
  readonly body: "report" | "text" | "json"
  /** Its renderer shows the run's events (the CLI against a service then asks for them too). */
  readonly events: boolean
  /** What it is, in a few words (OpenAPI, help, docs). */
  readonly description: string
  /** The response's Content-Security-Policy, in place of the service's (a page that quotes the trace runs sandboxed). */
  readonly policy?: string
}

/** What an HTML report may load: its own inline style and data images, nothing else (its `<meta>` policy, and the response's with `sandbox`). */
export const HTML_REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

export const DIAGNOSE_OUTPUTS = [
  {
    name: "json",
    mediaType: "application/json",
    contentType: "application/json",
    body: "report",
    events: false,
    description: "the report as JSON, `{report}`"
  },
  {
    name: "markdown",
    mediaType: "text/markdown",
    contentType: "text/markdown; charset=utf-8",
    body: "text",
    events: true,
    description: "a readable page"
  },
  {
    name: "sarif",
    mediaType: "application/sarif+json",
    contentType: "application/sarif+json",
    body: "json",
    events: false,
    description: "SARIF 2.1.0 for code scanning (`?artifact=` names the trace file for locations)"
  },
  {
    name: "html",
    mediaType: "text/html",
    contentType: "text/html; charset=utf-8",
    body: "text",
    events: true,
    description: "one self-contained HTML page",
    policy: `sandbox; ${HTML_REPORT_CSP}`
  },
  {
    name: "otlp",
    mediaType: "application/json",
    contentType: "application/json",
    body: "json",
    events: false,
    description: "the findings as OpenTelemetry gen_ai.evaluation.result log records in an ExportLogsServiceRequest"
  }
] as const satisfies NonEmpty<OutputEntry>

export type DiagnoseOutputEntry = (typeof DIAGNOSE_OUTPUTS)[number]
export type DiagnoseOutputName = DiagnoseOutputEntry["name"]
