/**
 * The renderer of each diagnose output, by the outputs registry's names (src/Registry/Outputs.ts,
 * which owns their order, media types and words): the REST handler and `svc diagnose` render
 * through here. Each renderer is loaded on first use, so start-up, idle memory and the typed
 * client never carry them.
 */
import type { DiagnoseOutput, DiagnoseReport, ReportContext } from "../../Contract/DiagnoseReport.js"

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
