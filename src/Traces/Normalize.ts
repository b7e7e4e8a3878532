/**
 * From a raw trace to normalized traces (DECISIONS §12): the format named or detected, the
 * importer run, several traces kept apart and one chosen with `select`, and the normalized limits
 * (events and content characters after de-duplication) checked. One owner for every surface:
 * `POST /v1/traces/normalize`, analyze and diagnose all read traces through here.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { AppConfigShape } from "../Config.js"
import { RequestTooLarge, UnsupportedTraceFormat, ValidationError } from "../Errors.js"
import type { OtlpDocument } from "../Otlp/Wire/Model.js"
import { TRACE_FORMATS, type TraceFormatEntry } from "../Registry/Formats.js"
import { makeTraceBuilder } from "./Builder.js"
import { anthropicImporter } from "./Formats/Anthropic.js"
import { autoGenImporter } from "./Formats/AutoGen.js"
import { claudeCodeImporter } from "./Formats/ClaudeCode.js"
import { codexImporter } from "./Formats/Codex.js"
import { geminiCliImporter } from "./Formats/GeminiCli.js"
import { inspectImporter } from "./Formats/Inspect.js"
import { langfuseImporter } from "./Formats/Langfuse.js"
import { mastImporter } from "./Formats/Mast.js"
import { langSmithImporter } from "./Formats/LangSmith.js"
import { openAiImporter } from "./Formats/OpenAI.js"
import { openInferenceImporter } from "./Formats/OpenInference.js"
import { otelImporter } from "./Formats/Otel.js"
import { smolagentsImporter } from "./Formats/Smolagents.js"
import { tauBenchImporter } from "./Formats/TauBench.js"
import { trajectoryImporter } from "./Formats/Trajectory.js"
import { type ImportedFormat, type Importer } from "./Importer.js"
import { fitsItem, fitsSequence, NATIVE_NEEDS, NATIVE_SEQUENCES } from "./Native.js"
import { nearestNote } from "./Nearest.js"
import { type ActorRole, type EventKind, FORMATS, type FormatOption, type NormalizedTrace, type TraceFormat } from "./Model.js"

/** Each imported format's importer, by its name in the registry (src/Registry/Formats.ts). */
export const IMPORTER_OF: { readonly [Format in ImportedFormat]: Importer } = {
  otel: otelImporter,
  openinference: openInferenceImporter,
  langsmith: langSmithImporter,
  trajectory: trajectoryImporter,
  claude_code: claudeCodeImporter,
  codex: codexImporter,
  langfuse: langfuseImporter,
  smolagents: smolagentsImporter,
  mast: mastImporter,
  inspect: inspectImporter,
  tau_bench: tauBenchImporter,
  gemini_cli: geminiCliImporter,
  autogen: autoGenImporter,
  anthropic: anthropicImporter,
  openai: openAiImporter
}

const isImported = (entry: TraceFormatEntry): entry is Extract<TraceFormatEntry, { readonly kind: "imported" }> => entry.kind === "imported"

/**
 * The importers in detection order, which is the registry's order: the most specific shapes
 * first; a bare `{role, content}` list is openai's, asked last.
 */
export const IMPORTERS: ReadonlyArray<Importer> = TRACE_FORMATS.filter(isImported).map((entry) => IMPORTER_OF[entry.name])
const byFormat: ReadonlyMap<string, Importer> = new Map(TRACE_FORMATS.filter(isImported).map((entry) => [entry.name, IMPORTER_OF[entry.name]]))

/**
 * The importer that recognises a body, if any (auto detection). A body is asked once: the intake
 * (the envelope test, the native test, normalization) asks about the same object more than once.
 */
const detected = new WeakMap<object, Importer | null>()
export const detectFormat = (body: unknown): Importer | undefined => {
  if (typeof body !== "object" || body === null) return IMPORTERS.find((importer) => safeDetect(importer, body))
  const known = detected.get(body)
  if (known !== undefined) return known ?? undefined
  const found = IMPORTERS.find((importer) => safeDetect(importer, body))
  detected.set(body, found ?? null)
  return found
}

const safeDetect = (importer: Importer, body: unknown) => {
  try {
    return importer.detect(body)
  } catch {
    return false
  }
}

const FORMAT_LIST = FORMATS.join(", ")

/** What a body looks like, for the unsupported_trace_format message. */
export const describeShape = (body: unknown): string => {
  if (body === null) return "null"
  if (Array.isArray(body)) {
    const first: unknown = body[0]
    if (first === undefined) return "an empty list"
    return `a list of ${body.length} ${Predicate.isRecord(first) ? `objects (the first with keys ${keysOf(first)})` : typeof first === "object" ? "lists" : `${typeof first}s`}`
  }
  if (Predicate.isRecord(body)) return `an object with keys ${keysOf(body)}`
  return `a ${typeof body}`
}
const keysOf = (record: Readonly<Record<string, unknown>>) => {
  const keys = Object.keys(record)
  return keys.length === 0 ? "(none)" : `${keys.slice(0, 8).join(", ")}${keys.length > 8 ? `, … (${keys.length} in all)` : ""}`
}

/**
 * `400 unsupported_trace_format`: the formats, the keys seen (the top level's and its lists'
 * records'), the nearest formats (src/Traces/Nearest.ts) and, from a reader that recognised the
 * body but read nothing from it, why (`problem`).
 */
export const unsupported = (body: unknown, named?: TraceFormat, problem?: string) => {
  const seen = [describeShape(body), nearestNote(body)].filter((part) => part.length > 0).join("; ")
  const why = problem === undefined ? "" : ` (${problem})`
  return new UnsupportedTraceFormat({
    message: named === undefined
      ? `the trace is in no supported format (${FORMAT_LIST})${why}; got ${seen}. See docs/traces.md for each format's shape, or send the pattern's own input shape (${NATIVE_NEEDS})`
      : `the trace is not readable as ${named}${why}: ${seen}. Supported formats: ${FORMAT_LIST}; omit \`format\` to detect it`
  })
}

export interface Normalized {
  readonly format: TraceFormat
  readonly traces: ReadonlyArray<NormalizedTrace>
}

export type Limits = AppConfigShape["limits"]

/**
 * The trace limits on a normalized trace: events against SVC_API_MAX_TRACE_STEPS, each content
 * against SVC_API_MAX_STRING_CHARS, all contents against SVC_API_MAX_TOTAL_CHARS.
 */
export const checkNormalizedLimits = (trace: NormalizedTrace, limits: Limits): Either.Either<void, RequestTooLarge> => {
  if (trace.events.length > limits.maxTraceSteps) {
    return Either.left(
      new RequestTooLarge({
        message: `the trace has ${trace.events.length} events after normalization, more than the limit of ${limits.maxTraceSteps}; raise SVC_API_MAX_TRACE_STEPS or split the trace`
      })
    )
  }
  let total = trace.task.length + trace.outcome.length
  for (const event of trace.events) {
    if (event.content.length > limits.maxStringChars) {
      return Either.left(
        new RequestTooLarge({
          message: `the event from ${event.source} has ${event.content.length} characters, more than the per-string limit of ${limits.maxStringChars}; raise SVC_API_MAX_STRING_CHARS`
        })
      )
    }
    total += event.content.length
  }
  if (total > limits.maxTotalChars) {
    return Either.left(
      new RequestTooLarge({
        message: `the trace has ${total} characters of content after normalization, more than the limit of ${limits.maxTotalChars}; raise SVC_API_MAX_TOTAL_CHARS or condense the trace`
      })
    )
  }
  return Either.void
}

/**
 * What a surface's intake does to each trace read, before its limits are checked: redaction
 * (DECISIONS §20, src/Redaction). `keepAsRead` for tools that read files for themselves (the
 * benches, `npm run check:corpus`), never for a request.
 */
export type RedactTrace = (trace: NormalizedTrace) => NormalizedTrace
export const keepAsRead: RedactTrace = (trace) => trace

/**
 * Reads a raw trace in a named format or detected one. `native` here is the service's own
 * sequence shapes (steps, messages, turns) read generically, for normalize. Each trace is redacted
 * (`redact`) once read, before the limits.
 */
export const normalizeTrace = (
  body: unknown,
  format: FormatOption,
  limits: Limits,
  redact: RedactTrace
): Either.Either<Normalized, UnsupportedTraceFormat | ValidationError | RequestTooLarge> =>
  Either.flatMap(normalizeEach(readTraces(body, format), limits, redact), (result) => {
    const traces: Array<NormalizedTrace> = []
    for (const trace of result.traces) {
      if (Either.isLeft(trace)) return Either.left(trace.left)
      traces.push(trace.right)
    }
    return Either.right({ format: result.format, traces })
  })

/**
 * Every trace of a body, each redacted, its limits judged on its own: a trace over them is
 * refused alone (the runs API takes the others, DECISIONS §17).
 */
export const normalizeTraces = (
  body: unknown,
  format: FormatOption,
  limits: Limits,
  redact: RedactTrace
): Either.Either<NormalizedEach, UnsupportedTraceFormat | ValidationError> => normalizeEach(readTraces(body, format), limits, redact)

/** A body's traces as one importer reads them; a body of which it reads no event is refused. */
const readWith = (importer: Importer, body: unknown): Either.Either<Normalized, ValidationError> => {
  let result: Either.Either<ReadonlyArray<NormalizedTrace>, string>
  try {
    result = importer.read(body)
  } catch {
    result = Either.left("the trace could not be read")
  }
  // A trace of which no event could be read is never accepted empty.
  const traces = Either.map(result, (read) => read.filter((trace) => trace.events.length > 0))
  return Either.match(traces, {
    onLeft: (message) => Either.left(new ValidationError({ message: `the ${importer.format} trace cannot be used: ${message}` })),
    onRight: (traces) =>
      traces.length === 0
        ? Either.left(new ValidationError({ message: `the ${importer.format} trace holds no events` }))
        : Either.right({ format: importer.format, traces })
  })
}

/**
 * A trace the OTLP assembly completed (DECISIONS §18), each trace of it redacted and judged by the
 * limits on its own: an OTLP/JSON document, which only the span readers read, so nothing else is
 * asked (no envelope, no other format, no native shape). The one question left is theirs: the
 * OpenInference reader's when its spans are OpenInference's (its `detect`, the question auto
 * detection asks), else the otel reader's, which reads every OTLP document.
 */
export const normalizeOtlp = (document: OtlpDocument, limits: Limits, redact: RedactTrace): Either.Either<NormalizedEach, ValidationError> =>
  normalizeEach(readWith(safeDetect(openInferenceImporter, document) ? openInferenceImporter : otelImporter, document), limits, redact)

/** A body's traces as read, before redaction and limits. */
const readTraces = (body: unknown, format: FormatOption): Either.Either<Normalized, UnsupportedTraceFormat | ValidationError> => {
  if (format === "native") {
    const native = readNative(body)
    return native === undefined ? Either.left(unsupported(body, "native")) : Either.right({ format: "native", traces: [native] })
  }
  if (format !== "auto") {
    const importer = byFormat.get(format)
    if (importer === undefined || !safeDetect(importer, body)) return Either.left(unsupported(body, format))
    return readWith(importer, body)
  }
  const importer = detectFormat(body)
  const detectedRead = importer === undefined ? undefined : readWith(importer, body)
  if (detectedRead !== undefined && Either.isRight(detectedRead)) return detectedRead
  const native = readNative(body)
  if (native !== undefined) return Either.right({ format: "native", traces: [native] })
  // Recognised by a reader that could read nothing from it: the body fits no reader well.
  const problem = detectedRead !== undefined && Either.isLeft(detectedRead) ? detectedRead.left.message : undefined
  return Either.left(unsupported(body, undefined, problem))
}

/** A body's traces, each redacted and judged by the limits on its own (a run per trace, DECISIONS §17). */
export interface NormalizedEach {
  readonly format: TraceFormat
  readonly traces: ReadonlyArray<Either.Either<NormalizedTrace, RequestTooLarge>>
}

const normalizeEach = <E>(read: Either.Either<Normalized, E>, limits: Limits, redact: RedactTrace): Either.Either<NormalizedEach, E> =>
  Either.map(read, (result) => ({
    format: result.format,
    traces: result.traces.map((trace) => {
      const redacted = redact(trace)
      return Either.map(checkNormalizedLimits(redacted, limits), () => redacted)
    })
  }))

/** Picks one trace: the only one, or the one `select` names (a trace id or an index). */
export const selectTrace = (normalized: Normalized, select: unknown): Either.Either<NormalizedTrace, ValidationError> => {
  const { traces } = normalized
  const names = traces.slice(0, 10).map((trace, i) => (trace.id === null ? `#${i}` : `#${i} (${trace.id})`)).join(", ")
  if (select === undefined || select === null) {
    const only = traces[0]
    if (traces.length === 1 && only !== undefined) return Either.right(only)
    return Either.left(
      new ValidationError({
        message: `the body holds ${traces.length} traces: ${names}${traces.length > 10 ? ", …" : ""}; choose one with \`select\` (a trace id or an index) in the envelope`
      })
    )
  }
  const chosen = typeof select === "number" && Number.isInteger(select)
    ? traces[select]
    : typeof select === "string"
    ? traces.find((trace) => trace.id === select) ?? (/^\d+$/.test(select) ? traces[Number(select)] : undefined)
    : undefined
  return chosen === undefined
    ? Either.left(new ValidationError({ message: `select names no trace in the body; it holds ${traces.length}: ${names}` }))
    : Either.right(chosen)
}

const KIND_BY_TYPE: ReadonlyArray<readonly [RegExp, EventKind]> = [
  [/^(thought|thinking|reasoning|plan)/i, "thought"],
  [/^(tool_result|observation|tool_output|result)/i, "tool_result"],
  [/^(tool_call|action|tool|call)/i, "tool_call"],
  [/^(error|exception|failure)/i, "error"],
  [/^(handoff|delegat)/i, "handoff"]
]
const kindOf = (type: unknown): EventKind => {
  if (typeof type !== "string") return "message"
  for (const [pattern, kind] of KIND_BY_TYPE) if (pattern.test(type)) return kind
  return "message"
}
const roleOf = (actor: string): ActorRole =>
  /^(user|human)$/i.test(actor) ? "user" : /^system$/i.test(actor) ? "system" : /^tool$/i.test(actor) ? "tool" : "agent"

/** The service's own sequence shapes (steps, messages, turns), read generically for normalize. */
const readNative = (body: unknown): NormalizedTrace | undefined => {
  if (!Predicate.isRecord(body)) return undefined
  const text = (u: unknown) => (typeof u === "string" ? u : u === undefined || u === null ? "" : JSON.stringify(u) ?? "")
  const builder = makeTraceBuilder(null)
  const sequences: ReadonlyArray<readonly [string, (item: Readonly<Record<string, unknown>>, source: string) => void]> = [
    ["steps", (step, source) => {
      const actor = text(step["actor"]) || "agent"
      const tool = text(step["tool"])
      builder.add({ actor, role: roleOf(actor), kind: kindOf(step["type"]), content: text(step["content"]), tool, timestamp: text(step["timestamp"]), source })
    }],
    ["messages", (message, source) => {
      const actor = text(message["from"]) || "agent"
      builder.add({ actor, role: roleOf(actor), kind: kindOf(message["type"]), content: text(message["content"]), to: text(message["to"]), timestamp: text(message["timestamp"]), source })
    }],
    ["turns", (turn, source) => {
      const actor = text(turn["role"]) || "agent"
      builder.add({ actor, role: roleOf(actor), kind: "message", content: text(turn["content"]), source })
    }]
  ]
  // A sequence is native only when its records carry the item's own keys (src/Traces/Native.ts):
  // a foreign `messages` list (a Gemini CLI session, an Agent SDK dump) is not read as one.
  let found = false
  for (const [field, read] of sequences) {
    const list = body[field]
    const keys = NATIVE_SEQUENCES.find(([name]) => name === field)?.[1]
    if (!Array.isArray(list) || keys === undefined || !list.some(Predicate.isRecord) || !fitsSequence(list, keys)) continue
    found = true
    list.forEach((item: unknown, i) => (Predicate.isRecord(item) && fitsItem(item, keys) ? read(item, `${field}[${i}]`) : builder.skip()))
  }
  if (!found || builder.eventCount() === 0) return undefined
  const task = body["task"] ?? body["goal"]
  if (typeof task === "string") builder.setTask(task)
  if (typeof body["outcome"] === "string") builder.setOutcome(body["outcome"])
  if (typeof body["success"] === "boolean") builder.setSuccess(body["success"])
  return builder.build()
}
