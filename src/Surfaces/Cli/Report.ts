/**
 * A diagnose report as the commands print it (`svc diagnose`, `svc runs show`): rendered by the
 * renderers of the outputs registry (Diagnose/Render/Outputs.ts, the ones the REST handlers use,
 * each loaded on first use), text as it is and JSON indented.
 */
import * as Effect from "effect/Effect"
import { loadRenderer, type Rendered, type RenderInput } from "../../Diagnose/Render/Outputs.js"
import { DIAGNOSE_OUTPUTS, type DiagnoseOutputName } from "../../Registry/Outputs.js"
import { CliFailure } from "./Backend.js"
import { pretty, withNewline } from "./Output.js"

/** The report in an output of the registry, through its renderer. */
export const renderReport = (output: DiagnoseOutputName, input: RenderInput): Effect.Effect<Rendered> =>
  Effect.map(Effect.promise(() => loadRenderer(output)), (render) => render(input))

/** What a rendering prints: text as it is, JSON indented. */
export const printedOf = (rendered: Rendered): string => (rendered._tag === "Text" ? withNewline(rendered.text) : pretty(rendered.value))

/** A rendering a service sent (its body as text), read as the registry says the output is: text, or a JSON document. */
export const renderedOf = (output: DiagnoseOutputName, text: string, where: string): Effect.Effect<Rendered, CliFailure> =>
  DIAGNOSE_OUTPUTS.some((entry) => entry.name === output && entry.body === "text")
    ? Effect.succeed({ _tag: "Text", text })
    : Effect.try({
      try: (): Rendered => ({ _tag: "Json", value: JSON.parse(text) }),
      catch: () => new CliFailure({ kind: "unexpected", message: `the service at ${where} answered the ${output} report with a body that is not JSON` })
    })
