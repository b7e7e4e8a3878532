/**
 * A trace's body as the contract takes it (DECISIONS §3, §12, §16), one member per media type:
 * JSON (`application/json`, the envelope or a raw trace), JSON Lines (`application/x-ndjson`, a
 * stream of records) and an Inspect AI `.eval` log (`application/zip`). HttpApi reads a body by
 * its media type (JSON parsed, any other as its bytes), the edge's replay (Edge/Replay.ts) answers
 * 415 for a media type the payload has no member for, and OpenAPI shows one request body per
 * media type. The bytes of JSON Lines and zip are parsed by the intake (Intake/Json.ts), which owns
 * their bounds and messages.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** The canonical media types of a trace sent as it is; the intake's aliases are read as these (Intake/Json.ts). */
export const JSON_LINES_MEDIA = "application/x-ndjson"
export const ZIP_MEDIA = "application/zip"

/**
 * Marks a payload's JSON member that takes a raw trace, so an array too (the edge's replay reads
 * such a body with the intake's trace reading, any other JSON payload as an object).
 */
export const TraceJsonAnnotationId: unique symbol = Symbol.for("pattern-analysis-service/TraceJson")

/**
 * A JSON trace body as the intake parsed it, passed on as it is: an object or an array, no copy
 * (a flat trace may hold hundreds of thousands of keys, and a record's copy by a schema would lose a
 * `__proto__` key). What it may hold is the intake's to say (the envelope against a format's own
 * fields, DECISIONS §3); OpenAPI shows `documented`, the body's schema, in its place.
 */
const traceJson = (documented: Schema.Schema.Any) =>
  Schema.declare(
    (input): input is Record<string, unknown> | Array<unknown> => Array.isArray(input) || (Predicate.isRecord(input) && !ArrayBuffer.isView(input)),
    { [AST.SurrogateAnnotationId]: documented.ast, [TraceJsonAnnotationId]: true }
  )

export const JsonLinesTrace = HttpApiSchema.Uint8Array({ contentType: JSON_LINES_MEDIA }).annotations({
  identifier: "JsonLinesTrace",
  description:
    "A trace as JSON Lines (one record per line, blank lines skipped; also application/jsonl, application/x-jsonlines, application/json-lines): read as the list of its records. Options come as query parameters."
})

export const InspectEvalLog = HttpApiSchema.Uint8Array({ contentType: ZIP_MEDIA }).annotations({
  identifier: "InspectEvalLog",
  description:
    "An Inspect AI `.eval` log as its tool wrote it (a zip of header.json and samples/*.json; also application/x-zip-compressed), inflated under SVC_API_MAX_BODY_BYTES. Options come as query parameters."
})

/**
 * The payload of an endpoint that takes a trace: `documented` (the JSON body's schema, shown in
 * OpenAPI) as JSON, or the bytes of JSON Lines or a zip. The typed client sends an object or an
 * array as JSON and bytes as JSON Lines.
 */
export const traceUpload = (documented: Schema.Schema.Any) => Schema.Union(traceJson(documented), JsonLinesTrace, InspectEvalLog)

/** What a trace endpoint's handler receives: the parsed JSON body, or the bytes of JSON Lines or a zip. */
export type TraceUpload = Record<string, unknown> | Array<unknown> | Uint8Array
