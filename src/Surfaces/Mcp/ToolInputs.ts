/**
 * The MCP tools' input schemas (DECISIONS §14), made with `JSONSchema.make` from the contract's
 * own schemas (the envelopes' options: format, select, hints, mode, model, baseline, patterns,
 * max_patterns, budget_tokens; the runs' labels, external id, filters and states), so the registries (src/Registry/) and the contract reach MCP
 * clients exactly as they reach OpenAPI and the typed client. Only `trace` is MCP's own: a tool
 * call may also pass the trace as a JSON (or JSON Lines) string. References are inlined and the
 * generated titles and ids dropped, so each schema stands alone for a tool-calling model.
 */
import * as JSONSchema from "effect/JSONSchema"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { analyzeOptions, rawTraceOptions } from "../../Contract/AnalyzeContract.js"
import { DiagnoseEnvelope } from "../../Contract/DiagnoseContract.js"
import { DiagnoseOutput } from "../../Contract/DiagnoseReport.js"
import { RunsEnvelope } from "../../Contract/RunsContract.js"
import { PageLimit, ProblemListParams, RunListParams } from "../../Contract/Queries.js"
import { DEFAULT_PAGE, MAX_PAGE } from "../../Contract/Statuses.js"
import { IMPORTED_FORMATS_READ } from "../../Registry/Derived.js"

const McpTrace = Schema.Unknown.annotations({
  jsonSchema: {
    type: ["object", "array", "string"],
    description:
      `The agent run: the pattern's own input (GET /v1/patterns/{name} describes it), or a raw trace in any supported format (${IMPORTED_FORMATS_READ}). ` +
      "An object, an array, or the same as a JSON (or JSON Lines) string."
  }
})

/** A JSON Schema with its `$defs` references inlined and the generated `title`s and `$id`s left out. */
const standalone = (node: unknown, defs: Readonly<Record<string, unknown>>): unknown => {
  if (Array.isArray(node)) return node.map((item: unknown) => standalone(item, defs))
  if (!Predicate.isRecord(node)) return node
  const out: Record<string, unknown> = {}
  const ref = node["$ref"]
  if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
    const target = standalone(defs[ref.slice("#/$defs/".length)], defs)
    if (Predicate.isRecord(target)) Object.assign(out, target)
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" || key === "$id" || key === "title" || key === "$schema" || key === "$defs") continue
    out[key] = standalone(value, defs)
  }
  return out
}

/** An object schema for these fields: `{type: "object", properties, required}`. */
const objectSchema = (fields: Schema.Struct.Fields): Record<string, unknown> => {
  const root: unknown = JSONSchema.make(Schema.Struct(fields))
  const defs = Predicate.isRecord(root) && Predicate.isRecord(root["$defs"]) ? root["$defs"] : {}
  const schema = standalone(root, defs)
  const properties = Predicate.isRecord(schema) ? schema["properties"] : undefined
  const required = Predicate.isRecord(schema) ? schema["required"] : undefined
  return { type: "object", properties: properties ?? {}, required: required ?? [] }
}

/** `svc_<pattern>`: the trace, the analysis options and the raw trace's options. */
export const patternToolInput = objectSchema({ trace: McpTrace, ...rawTraceOptions, ...analyzeOptions })

/** `svc_diagnose`: the trace and the diagnose envelope's options. */
export const diagnoseToolInput = objectSchema({ ...DiagnoseEnvelope.fields, trace: McpTrace })

/** `svc_check`: the trace and the diagnose envelope's options the checks read (format, select); no lens runs. */
export const checkToolInput = objectSchema({ trace: McpTrace, format: DiagnoseEnvelope.fields.format, select: DiagnoseEnvelope.fields.select })

/** `svc_submit_run`: what `svc_diagnose` takes, with the run's labels and external id (`POST /v1/runs`'s envelope). */
export const SubmitRunArguments = Schema.Struct({ ...RunsEnvelope.fields, trace: McpTrace }).annotations({
  identifier: "McpSubmitRunArguments",
  description: "The trace with the diagnose's options, labels and an external id."
})
export const submitRunToolInput = objectSchema(SubmitRunArguments.fields)

/**
 * `svc_list_runs`: `GET /v1/runs`'s filters and cursor, the states and severities as the
 * contract's enums and the page size as a number (a query parameter is text; a tool argument need not be).
 */
export const ListRunsArguments = Schema.Struct({
  ...RunListParams.fields,
  // JSON carries the page's size as a number: the contract's limit, its typed side
  limit: Schema.optional(Schema.typeSchema(PageLimit).annotations({ description: `Runs per page, 1-${MAX_PAGE} (default ${DEFAULT_PAGE}).` }))
}).annotations({ identifier: "McpListRunsArguments", description: "Filters of the runs listed, newest first, and the page." })
export const listRunsToolInput = objectSchema(ListRunsArguments.fields)

/** The outputs a run's report comes in over MCP: the JSON report, or the Markdown page diagnose renders. */
export const RunToolOutput = DiagnoseOutput.pipe(Schema.pickLiteral("json", "markdown")).annotations({
  identifier: "McpRunOutput",
  description: "`json` (default): the run and its report as structuredContent; `markdown`: the report rendered as diagnose renders it, as the text."
})

/** `svc_explain_run`: the run's id. */
export const ExplainRunArguments = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "The run's id, as svc_list_runs gives it." })
}).annotations({ identifier: "McpExplainRunArguments", description: "A run to explain again with its lenses." })
export const explainRunToolInput = objectSchema(ExplainRunArguments.fields)

/** `svc_get_run`: the run's id and the report's output. */
export const GetRunArguments = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "The run's id, as svc_submit_run or svc_list_runs gave it." }),
  output: Schema.optional(RunToolOutput)
}).annotations({ identifier: "McpGetRunArguments", description: "One run, by id, with its report when done." })
export const getRunToolInput = objectSchema(GetRunArguments.fields)

/** `svc_list_problems`: `GET /v1/problems`'s filters and cursor, the status and severity as the contract's enums. */
export const ListProblemsArguments = Schema.Struct({
  ...ProblemListParams.fields,
  limit: Schema.optional(Schema.typeSchema(PageLimit).annotations({ description: `Problems per page, 1-${MAX_PAGE} (default ${DEFAULT_PAGE}).` }))
}).annotations({ identifier: "McpListProblemsArguments", description: "Filters of the problems listed, most recently seen first, and the page." })
export const listProblemsToolInput = objectSchema(ListProblemsArguments.fields)

/** `svc_get_problem`: the problem's id. */
export const GetProblemArguments = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "The problem's id, as svc_list_problems or a run's `problems` gave it." })
}).annotations({ identifier: "McpGetProblemArguments", description: "One problem, by id." })
export const getProblemToolInput = objectSchema(GetProblemArguments.fields)
