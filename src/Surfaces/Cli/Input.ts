/**
 * What the commands read: the trace (a file, or standard input with `-` or no file), JSON or
 * JSON Lines, parsed by the same reader as the service's request bodies (Intake/Json.ts), and the
 * `--hints` object (inline JSON or a file). A file that cannot be read or parsed is a usage error
 * (exit 2) with the reason, never a stack.
 *
 * Every read is bounded (issue 27): files, devices, FIFOs and standard input are read in chunks
 * and given up past the limit, whatever `stat` says of their size (`/dev/zero` says 0). Nothing
 * waits in a worker thread: a read that never comes (a FIFO with no writer) is interrupted by
 * Ctrl-C or SIGTERM like anything else.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import { close, constants, createReadStream, fstat, open } from "node:fs"
import { readdir, stat } from "node:fs/promises"
import { Socket } from "node:net"
import { extname, isAbsolute, join, relative, resolve } from "node:path"
import type { Readable } from "node:stream"
import { JsonBounds, looksLikeZip, parseTraceBody, parseZipTrace } from "../../Intake/Json.js"
import { traceReaders } from "../../Traces/Readers.js"
import { type Body, CliFailure } from "./Backend.js"
import { printable } from "./Printable.js"

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
  const code: unknown = Predicate.hasProperty(error, "code") ? error.code : undefined
  if (code === "ENOENT") return "no such file"
  if (code === "EISDIR") return "it is a directory"
  if (code === "EACCES") return "permission denied"
  if (code === "EAGAIN") return "nothing to read without waiting (a terminal or a device)"
  if (code === "ENXIO") return "no such device or address (a socket, or a terminal this process does not have)"
  // Node's messages quote the path: escaped as the path is.
  return printable(error instanceof Error ? error.message : String(error))
}

/** Bytes per read: what one chunk may add beyond the limit before the read stops. */
const CHUNK_BYTES = 64 * 1024

/**
 * Opens a file without waiting: O_NONBLOCK, so a FIFO with no writer opens at once (a blocking
 * open holds a libuv worker thread, and `process.exit` waits for that thread: SIGTERM and
 * Ctrl-C could not end the process). A FIFO is read as a pipe, polled on the event loop (the
 * kernel reports its end only once a writer has come and gone); anything else as a file, in
 * chunks (a directory fails at the first read with EISDIR, a terminal with EAGAIN).
 */
const openStream = (path: string): Effect.Effect<Readable, unknown> =>
  Effect.async<Readable, unknown>((resume) => {
    let interrupted = false
    open(path, constants.O_RDONLY | constants.O_NONBLOCK, (openError, fd) => {
      if (openError !== null) return resume(Effect.fail(openError))
      fstat(fd, (statError, stat) => {
        if (statError !== null || interrupted) return close(fd, () => resume(Effect.fail(statError)))
        resume(Effect.succeed(
          stat.isFIFO() ? new Socket({ fd, readable: true, writable: false }) : createReadStream(path, { fd, highWaterMark: CHUNK_BYTES })
        ))
      })
    })
    return Effect.sync(() => {
      interrupted = true
    })
  })

/**
 * Reads a stream to its end, or to `limit` bytes: past it, the stream is destroyed (the file
 * closed, nothing more read) and the answer is "too large". Interrupted, the stream is destroyed.
 */
const readBounded = (stream: Readable, limit: number): Effect.Effect<Uint8Array | "too large", unknown> =>
  Effect.async<Uint8Array | "too large", unknown>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      stream.off("data", onData)
      stream.off("end", onEnd)
      stream.off("error", onError)
      stream.destroy()
    }
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk
      size += buffer.length
      if (size > limit) {
        stop()
        resume(Effect.succeed("too large"))
        return
      }
      chunks.push(buffer)
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks, size)))
    }
    const onError = (error: Error) => {
      stop()
      resume(Effect.fail(error))
    }
    stream.on("data", onData)
    stream.on("end", onEnd)
    stream.on("error", onError)
    return Effect.sync(stop)
  })

/**
 * The bytes of a file (standard input when `path` is undefined), at most `limit`: more is
 * `request_too_large` (exit 2), naming the limit and the variable that raises it.
 */
const readBytes = (path: string | undefined, limit: number, what: string): Effect.Effect<Uint8Array, CliFailure> =>
  (path === undefined ? Effect.succeed<Readable>(process.stdin) : openStream(path)).pipe(
    Effect.flatMap((stream) => readBounded(stream, limit)),
    Effect.mapError((error) => usage(`cannot read ${what}: ${reasonOf(error)}`)),
    Effect.flatMap((bytes) =>
      bytes === "too large"
        ? Effect.fail(
          new CliFailure({
            kind: "request_too_large",
            message: `${what} holds more than ${limit} bytes (the limit); raise it with --max-bytes or SVC_API_MAX_BODY_BYTES`
          })
        )
        : Effect.succeed(bytes)
    )
  )

const decoder = new TextDecoder()

const JSON_LINES = new Set([".jsonl", ".ndjson"])

/**
 * The trace of a command: `file` absent or `-` reads standard input (refused when it is a
 * terminal: nothing would come). JSON Lines by the extension (.jsonl, .ndjson), or when the text
 * is not one JSON value but every line is; a zip archive (Inspect AI's `.eval`) read as the JSON
 * log it stands for, as the service reads an application/zip body.
 */
export const readTrace = (file: Option.Option<string>, limit: number): Effect.Effect<TraceInput, CliFailure> =>
  Effect.gen(function*() {
    const path = Option.getOrUndefined(Option.filter(file, (name) => name !== "-" && name !== STDIN_ARGUMENT))
    if (path === undefined && process.stdin.isTTY === true) {
      return yield* usage("no trace given: name a trace file, or pipe one to standard input (svc diagnose - < run.json)")
    }
    const where = path === undefined ? "standard input" : printable(path)
    const bytes = yield* readBytes(path, limit, where)
    if (looksLikeZip(bytes)) {
      // What it inflates to counts against the same limit as the bytes read.
      const bounds = yield* JsonBounds
      const log = yield* parseZipTrace(bytes).pipe(
        Effect.provideService(JsonBounds, { ...bounds, maxInflatedBytes: limit }),
        Effect.mapError((error) => usage(`${where}: ${error.message}`))
      )
      return { path, text: JSON.stringify(log), body: log }
    }
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

/**
 * SARIF's artifact location by default: the input file as given, relative to the working directory
 * when it lies inside it (the repository root in a CI job, as code scanning expects); standard
 * input is trace.json.
 */
export const artifactOf = (path: string | undefined): string => {
  if (path === undefined) return "trace.json"
  const inside = relative(process.cwd(), resolve(path))
  return inside.length > 0 && !inside.startsWith("..") && !isAbsolute(inside) ? inside : path
}

/** Whether a FILE argument names standard input (`-`, renamed by `markStdin`). */
export const isStdin = (file: string) => file === "-" || file === STDIN_ARGUMENT

/**
 * The trace files a FILE|DIR|- argument names: a directory's regular files (not its hidden ones,
 * nor its subdirectories), sorted by name; standard input as undefined; a file as itself.
 */
export const traceFilesOf = (target: string): Effect.Effect<ReadonlyArray<string | undefined>, CliFailure> =>
  isStdin(target) ? Effect.succeed([undefined]) : Effect.gen(function*() {
    const where = printable(target)
    const info = yield* Effect.tryPromise({ try: () => stat(target), catch: (error) => usage(`cannot read ${where}: ${reasonOf(error)}`) })
    if (!info.isDirectory()) return [target]
    const names = yield* Effect.tryPromise({ try: () => readdir(target), catch: (error) => usage(`cannot read the directory ${where}: ${reasonOf(error)}`) })
    const files: Array<string> = []
    for (const name of names.filter((entry) => !entry.startsWith(".")).sort()) {
      const path = join(target, name)
      const entry = yield* Effect.tryPromise({ try: () => stat(path), catch: (error) => usage(`cannot read ${printable(path)}: ${reasonOf(error)}`) })
      if (entry.isFile()) files.push(path)
    }
    if (files.length === 0) return yield* usage(`the directory ${where} holds no trace file`)
    return files
  })

/** The text of a file (standard input for `-`), at most `limit` bytes. */
export const readText = (file: string, limit: number): Effect.Effect<string, CliFailure> => {
  const path = isStdin(file) ? undefined : file
  if (path === undefined && process.stdin.isTTY === true) return Effect.fail(usage("nothing to read: name a file, or pipe one to standard input"))
  return Effect.map(readBytes(path, limit, path === undefined ? "standard input" : printable(path)), (bytes) => decoder.decode(bytes))
}

/** `--hints`: a JSON object inline (starting with `{`) or the path of a file holding one (at most `limit` bytes, as a trace). */
export const readHints = (value: Option.Option<string>, limit: number): Effect.Effect<Option.Option<Record<string, unknown>>, CliFailure> =>
  Option.match(value, {
    onNone: () => Effect.succeedNone,
    onSome: (raw) =>
      Effect.gen(function*() {
        const inline = raw.trimStart().startsWith("{")
        const text = inline ? raw : decoder.decode(yield* readBytes(raw, limit, `the hints file ${printable(raw)}`))
        const parsed = yield* Effect.try({
          try: (): unknown => JSON.parse(text),
          catch: (error) => usage(`--hints ${inline ? "" : `(${printable(raw)}) `}is not valid JSON: ${reasonOf(error)}`)
        })
        if (!Predicate.isRecord(parsed)) return yield* usage("--hints must be a JSON object of the pattern's extra input fields")
        return Option.some({ ...parsed })
      })
  })

/**
 * The request body for a trace file and the command's options: `{trace, ...options}`. A file that
 * already holds an envelope (`{trace: {...}, mode: ...}`, not itself a trace format) keeps its
 * options, and the command line's win. The formats' detection is the trace readers' (loaded here).
 */
export const envelopeOf = (body: Body, options: Readonly<Record<string, unknown>>): Effect.Effect<Record<string, unknown>> =>
  Effect.map(traceReaders, ({ detectFormat }) => {
    const set: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(options)) if (value !== undefined) set[key] = value
    if (Predicate.isRecord(body) && detectFormat(body) === undefined && (Predicate.isRecord(body["trace"]) || Array.isArray(body["trace"]))) {
      return { ...body, ...set }
    }
    return { trace: body, ...set }
  })
