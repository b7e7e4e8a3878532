/**
 * The renderer of each diagnose output, by the outputs registry's names (src/Registry/Outputs.ts,
 * which owns their order, media types and words): the REST handler and `svc diagnose` render
 * through here; `svc check` renders the checks alone (DECISIONS §23) in the outputs that have a
 * checks renderer below. Each renderer is loaded on first use, so start-up, idle memory and the
 * typed client never carry them.
 */
import type { ChecksResponse } from "../../Contract/DiagnoseContract.js"
import type { DiagnoseOutput, DiagnoseReport, ReportContext } from "../../Contract/DiagnoseReport.js"
import { OUTPUT_NAMES } from "../../Registry/Derived.js"

/** A rendering: text (Markdown, HTML) or a JSON document (the report, SARIF, OTLP). */
export type Rendered =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Json"; readonly value: unknown }

export interface RenderInput {
  readonly report: DiagnoseReport
  readonly context: ReportContext
  /** The JSON response body as served (`{report}`): the json output is that body as it is. */
  readonly body: unknown
}

export type Renderer = (input: RenderInput) => Rendered

const text = (value: string): Rendered => ({ _tag: "Text", text: value })
const json = (value: unknown): Rendered => ({ _tag: "Json", value })

/** Every output of the registry has one (the compiler asks for a new output's). */
const RENDERERS: { readonly [Output in DiagnoseOutput]: () => Promise<Renderer> } = {
  json: () => Promise.resolve(({ body }) => json(body)),
  markdown: () => import("./Markdown.js").then(({ renderMarkdown }) => ({ report, context }) => text(renderMarkdown(report, context))),
  sarif: () => import("./Sarif.js").then(({ renderSarif }) => ({ report, context }) => json(renderSarif(report, context))),
  html: () => import("./Html.js").then(({ renderHtml }) => ({ report, context }) => text(renderHtml(report, context))),
  otlp: () => import("./Otlp.js").then(({ renderOtlp }) => ({ report, context }) => json(renderOtlp(report, context)))
}

/** The output's renderer, loaded on first use. */
export const loadRenderer = (output: DiagnoseOutput): Promise<Renderer> => RENDERERS[output]()

/** One trace file's checks, as `svc check` renders them. */
export interface CheckedFile {
  /** The file as given (`-` for standard input). */
  readonly file: string
  readonly result: ChecksResponse
  /** The response body as served (the json output prints it as it is). */
  readonly body: unknown
  /** `artifact`: the file's path for SARIF; `body`: its text, for the lines of cited elements. */
  readonly context: ReportContext
}

export interface ChecksRendering {
  /** When it is rendered, for the outputs that stamp a time (OTLP). */
  readonly at: string
  /** Several files were asked for (json lists them, even when only one could be checked). */
  readonly several: boolean
}

export type ChecksRenderer = (files: ReadonlyArray<CheckedFile>, rendering: ChecksRendering) => Rendered

/**
 * The outputs of the checks alone: one file's json is its body as served, several files' a list of
 * `{file, ...body}` (of those that could be checked); Markdown a page per file; SARIF a run per
 * file; OTLP one request of every record.
 */
const CHECK_RENDERERS = {
  json: () =>
    Promise.resolve((files, { several }) =>
      json(!several && files[0] !== undefined ? files[0].body : files.map(({ body, file }) => ({ file, ...(typeof body === "object" && body !== null ? body : {}) })))
    ),
  markdown: () =>
    import("./Markdown.js").then(({ renderChecksMarkdown }) => (files) => text(files.map(({ context, result }) => renderChecksMarkdown(result, context)).join("\n---\n\n"))),
  sarif: () => import("./Sarif.js").then(({ renderChecksSarif }) => (files) => json(renderChecksSarif(files))),
  otlp: () => import("./Otlp.js").then(({ renderChecksOtlp }) => (files, { at }) => json(renderChecksOtlp(files.map(({ result }) => result), at)))
} as const satisfies Partial<{ readonly [Output in DiagnoseOutput]: () => Promise<ChecksRenderer> }>

export type ChecksOutput = keyof typeof CHECK_RENDERERS

const hasChecksRenderer = (name: DiagnoseOutput): name is ChecksOutput => Object.hasOwn(CHECK_RENDERERS, name)

/** The outputs `svc check --format` offers, in the registry's order. */
export const CHECK_OUTPUT_NAMES: ReadonlyArray<ChecksOutput> = OUTPUT_NAMES.filter(hasChecksRenderer)

/** The checks renderer of an output, loaded on first use. */
export const loadChecksRenderer = (output: ChecksOutput): Promise<ChecksRenderer> => CHECK_RENDERERS[output]()
