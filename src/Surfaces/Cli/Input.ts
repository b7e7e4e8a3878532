/**
 * What the commands read: the trace (a file, or standard input with `-` or no file), JSON or
 * JSON Lines, parsed by the same reader as the service's request bodies (Edge/Body.ts), and the
 * `--hints` object (inline JSON or a file). A file that cannot be read or parsed is a usage error
 * (exit 2) with the reason, never a stack.
 */
import { Effect, Option } from "effect"
import { open, readFile } from "node:fs/promises"
import { extname } from "node:path"
import { parseTraceBody } from "../../Edge/Body.js"
import { detectFormat } from "../../Traces/Normalize.js"
import { isRecord } from "../../Traces/Importer.js"
import { type Body, CliFailure } from "./Backend.js"

/**
 * A lone `-` on the command line, renamed before parsing: @effect/cli reads an argument that starts
 * with `-` as the end of the options, so `svc diagnose - --format json` would leave `--format` unread.
 */
export const STDIN_ARGUMENT = "\u2012stdin"

/** The command line with each lone `-` (standard input) renamed for the parser. */
export const markStdin = (argv: ReadonlyArray<string>): Array<string> => argv.map((arg) => (arg === "-" ? STDIN_ARGUMENT : arg))

export interface TraceInput {
  /** The file's path as given; undefined for standard input. */
  readonly path: string | undefined
  /** The file's text (SARIF locations are lines of it). */
  readonly text: string
  readonly body: Body
}

const usage = (message: string) => new CliFailure({ kind: "usage", message })

const reasonOf = (error: unknown): string => {
  const code: unknown = typeof error === "object" && error !== null ? Reflect.get(error, "code") : undefined
  if (code === "ENOENT") return "no such file"
  if (code === "EISDIR") return "it is a directory"
  if (code === "EACCES") return "permission denied"
  return error instanceof Error ? error.message : String(error)
}

/** Reads a stream to its end, refusing more than `limit` bytes. */
const readStream = (stream: NodeJS.ReadableStream, limit: number): Promise<Uint8Array | "too large"> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    stream.on("data", (chunk: Buffer | string) => {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk
      size += buffer.length
      if (size > limit) {
        stream.removeAllListeners("data")
        resolve("too large")
        return
      }
      chunks.push(buffer)
    })
    stream.on("end", () => resolve(Buffer.concat(chunks, size)))
    stream.on("error", reject)
  })

const readBytes = (path: string | undefined, limit: number): Effect.Effect<Uint8Array, CliFailure> =>
  Effect.tryPromise({
    try: async () => {
      if (path === undefined) return await readStream(process.stdin, limit)
      const handle = await open(path, "r")
      try {
        const { size } = await handle.stat()
        if (size > limit) return "too large"
        return new Uint8Array(await handle.readFile())
      } finally {
        await handle.close()
      }
    },
    catch: (error) => usage(`cannot read ${path ?? "standard input"}: ${reasonOf(error)}`)
  }).pipe(
    Effect.flatMap((bytes) =>
      bytes === "too large"
        ? Effect.fail(
          new CliFailure({
            kind: "request_too_large",
            message: `${path ?? "standard input"} holds more than ${limit} bytes; raise SVC_API_MAX_BODY_BYTES to accept larger traces`
          })
        )
        : Effect.succeed(bytes)
    )
  )

const JSON_LINES = new Set([".jsonl", ".ndjson"])

/**
 * The trace of a command: `file` absent or `-` reads standard input (refused when it is a
 * terminal: nothing would come). JSON Lines by the extension (.jsonl, .ndjson), or when the text
 * is not one JSON value but every line is.
 */
export const readTrace = (file: Option.Option<string>, limit: number): Effect.Effect<TraceInput, CliFailure> =>
  Effect.gen(function*() {
    const path = Option.getOrUndefined(Option.filter(file, (name) => name !== "-" && name !== STDIN_ARGUMENT))
    if (path === undefined && process.stdin.isTTY === true) {
      return yield* usage("no trace given: name a trace file, or pipe one to standard input (svc diagnose - < run.json)")
    }
    const bytes = yield* readBytes(path, limit)
    const where = path ?? "standard input"
    const lines = path !== undefined && JSON_LINES.has(extname(path).toLowerCase())
    const parsed = yield* (lines
      ? parseTraceBody(bytes, true)
      : parseTraceBody(bytes, false).pipe(
        // Not one JSON value: JSON Lines when every line is one (two records at least).
        Effect.catchAll((error) =>
          parseTraceBody(bytes, true).pipe(
            Effect.filterOrFail((records) => Array.isArray(records) && records.length > 1, () => error),
            Effect.orElseFail(() => error)
          )
        )
      )).pipe(Effect.mapError((error) => usage(`${where}: ${error.message.replace("the request body", "the trace")}`)))
    return { path, text: Buffer.from(bytes).toString("utf8"), body: parsed }
  })

/** `--hints`: a JSON object inline (starting with `{`) or the path of a file holding one. */
export const readHints = (value: Option.Option<string>): Effect.Effect<Option.Option<Record<string, unknown>>, CliFailure> =>
  Option.match(value, {
    onNone: () => Effect.succeedNone,
    onSome: (raw) =>
      Effect.gen(function*() {
        const inline = raw.trimStart().startsWith("{")
        const text = inline
          ? raw
          : yield* Effect.tryPromise({ try: () => readFile(raw, "utf8"), catch: (error) => usage(`cannot read the hints file ${raw}: ${reasonOf(error)}`) })
        const parsed = yield* Effect.try({
          try: (): unknown => JSON.parse(text),
          catch: (error) => usage(`--hints ${inline ? "" : `(${raw}) `}is not valid JSON: ${reasonOf(error)}`)
        })
        if (!isRecord(parsed)) return yield* usage("--hints must be a JSON object of the pattern's extra input fields")
        return Option.some({ ...parsed })
      })
  })

/**
 * The request body for a trace file and the command's options: `{trace, ...options}`. A file that
 * already holds an envelope (`{trace: {...}, mode: ...}`, not itself a trace format) keeps its
 * options, and the command line's win.
 */
export const envelopeOf = (body: Body, options: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const set: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(options)) if (value !== undefined) set[key] = value
  if (isRecord(body) && detectFormat(body) === undefined && (isRecord(body["trace"]) || Array.isArray(body["trace"]))) {
    return { ...body, ...set }
  }
  return { trace: body, ...set }
}
