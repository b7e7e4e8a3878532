/**
 * The names and phrases every surface takes from the registries, computed here once from their
 * lists (the registry files hold their entries only). Light: the CLI's help and the typed client
 * load it without any schema module.
 */
import { alternatives, listOf, namesOf } from "./Entries.js"
import { TRACE_FORMATS } from "./Formats.js"
import { DEFAULT_MODE, MODES } from "./Modes.js"
import { DIAGNOSE_OUTPUTS } from "./Outputs.js"
import { SEVERITIES } from "./Severity.js"

/** The formats' names, in detection order. */
export const FORMAT_NAMES = namesOf(TRACE_FORMATS)
/** What `format` (and `svc --from`) may be: `auto` or a format's name. */
export const FORMAT_OPTIONS = ["auto", ...FORMAT_NAMES] as const
/** What the imported formats read, in words: `OpenTelemetry GenAI: …; OpenInference …; …`. */
export const IMPORTED_FORMATS_READ = TRACE_FORMATS.filter((format) => format.kind === "imported").map((format) => format.reads).join("; ")

/** The modes' names, lightest first. */
export const MODE_NAMES = namesOf(MODES)
/** `quick (1 model call), standard (2 model calls, the default), …`. */
export const MODES_DESCRIBED = listOf(MODES.map((mode) => `${mode.name} (${mode.calls}${mode.name === DEFAULT_MODE ? ", the default" : ""})`))
/** `quick, standard (default) or forensic`. */
export const MODE_CHOICE = alternatives(MODES.map((mode) => (mode.name === DEFAULT_MODE ? `${mode.name} (default)` : mode.name)))

/** The outputs' names; the first is the service's default. */
export const OUTPUT_NAMES = namesOf(DIAGNOSE_OUTPUTS)
/** `json (application/json, the default): the report as JSON, …; markdown (text/markdown): …`. */
export const OUTPUTS_DESCRIBED = DIAGNOSE_OUTPUTS.map((output, index) =>
  `${output.name} (${output.mediaType}${index === 0 ? ", the default" : ""}): ${output.description}`
).join("; ")

/** The severity scale, least severe first. */
export const SEVERITY_SCALE = namesOf(SEVERITIES)
