/**
 * What the registries (src/Registry/) leave to the code, checked against them: every imported
 * format has its importer, asked in the registry's order (the detection order); every output has
 * a renderer that gives the kind of body the registry declares for OpenAPI, sent with a
 * Content-Type of the media type it declares.
 */
import { describe, expect, it } from "@effect/vitest"
import { loadRenderer } from "../../src/Diagnose/Render/Outputs.js"
import { DIAGNOSE_OUTPUTS } from "../../src/Registry/Outputs.js"
import { TRACE_FORMATS } from "../../src/Registry/Formats.js"
import { IMPORTER_OF, IMPORTERS } from "../../src/Traces/Normalize.js"
import { otelSample } from "../diagnose/sample-report.js"

describe("the registries and the code behind their entries", () => {
  it("the importers are asked in the formats registry's order, each under its own name", () => {
    const imported = TRACE_FORMATS.flatMap((format) => (format.kind === "imported" ? [format.name] : []))
    expect(IMPORTERS.map((importer) => importer.format)).toEqual(imported)
    for (const [name, importer] of Object.entries(IMPORTER_OF)) expect(importer.format).toBe(name)
    expect(TRACE_FORMATS.at(-1)?.kind).toBe("native")
  })

  it("every output's renderer renders the body its registry entry declares", async () => {
    for (const output of DIAGNOSE_OUTPUTS) {
      const render = await loadRenderer(output.name)
      const rendered = render({ report: otelSample.report, context: otelSample.context, body: { report: otelSample.report } })
      expect(rendered._tag, output.name).toBe(output.body === "text" ? "Text" : "Json")
      if (output.body === "report") expect(rendered._tag === "Json" ? rendered.value : undefined).toEqual({ report: otelSample.report })
      expect(output.contentType.startsWith(output.mediaType), output.name).toBe(true)
    }
  })
})
