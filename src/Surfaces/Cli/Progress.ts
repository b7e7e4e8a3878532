/**
 * Progress on stderr while a command runs, when stderr is a terminal (DECISIONS §14): one live
 * line per pattern with its state (queued, calling the model, verifying, done, failed), its
 * elapsed time, model calls and tokens; against a service (`--url`), one line with the request's
 * elapsed time. The lines are redrawn in place (cursor up, erase line) ten times a second and left
 * on screen at the end. Colour only when NO_COLOR is unset; nothing at all when stderr is not a
 * terminal (piped, redirected, a CI log) or TERM=dumb, so stdout holds only the result and logs
 * stay plain.
 */
import type { AnalysisProgressShape, ProgressReport, ProgressState } from "../../Analysis/Progress.js"
import { printable } from "./Printable.js"

export interface ProgressOptions {
  /** Redraw live lines (stderr is a terminal). */
  readonly live: boolean
  readonly color: boolean
  readonly stream: { readonly write: (text: string) => unknown; readonly columns?: number | undefined }
}

interface Row {
  readonly label: string
  state: ProgressState | "waiting"
  startedAt: number | undefined
  endedAt: number | undefined
  calls: number
  inputTokens: number
  outputTokens: number
  note: string | undefined
}

export interface ProgressView {
  /** The listener for the services' reports (in-process runs). */
  readonly listener: AnalysisProgressShape
  /** A line for a request to a service (`--url`), waiting until it is told it ended. */
  readonly request: (label: string) => { readonly end: (failed: boolean) => void }
  /** Draws the last frame and stops. */
  readonly stop: () => void
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
const SGR = { dim: "2", red: "31", green: "32", yellow: "33", cyan: "36" }

const STATE_TEXT: Record<Row["state"], string> = {
  queued: "queued",
  waiting: "waiting for the service",
  calling: "calling the model",
  verifying: "verifying",
  done: "done",
  failed: "failed"
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`
const tokens = (count: number) => (count >= 10_000 ? `${Math.round(count / 1000)}k` : count >= 1000 ? `${(count / 1000).toFixed(1)}k` : String(count))

export const makeProgress = (options: ProgressOptions): ProgressView => {
  const rows = new Map<string, Row>()
  let drawn = 0
  let frame = 0
  let timer: ReturnType<typeof setInterval> | undefined
  let stopped = false
  const paint = (code: string, text: string) => (options.color ? `\x1b[${code}m${text}\x1b[0m` : text)

  const lineOf = (row: Row, now: number, width: number): string => {
    const running = row.state === "calling" || row.state === "verifying" || row.state === "waiting"
    const mark = row.state === "done"
      ? paint(SGR.green, "✓")
      : row.state === "failed"
      ? paint(SGR.red, "✗")
      : running
      ? paint(SGR.cyan, SPINNER[frame % SPINNER.length] ?? "·")
      : paint(SGR.dim, "·")
    const state = `${STATE_TEXT[row.state]}${row.note === undefined ? "" : ` (${row.note})`}`
    const elapsed = row.startedAt === undefined ? "" : seconds((row.endedAt ?? now) - row.startedAt)
    const usage = row.calls === 0 && row.inputTokens === 0
      ? ""
      : `${row.calls} call${row.calls === 1 ? "" : "s"}  ${tokens(row.inputTokens)} in / ${tokens(row.outputTokens)} out tokens`
    // The label is a name from outside (a pattern named on the command line, an address): escaped, as everything the line says.
    const plain = printable(`${row.label.padEnd(22)} ${state.padEnd(26)} ${elapsed.padStart(6)}  ${usage}`.trimEnd())
    const fitted = plain.length > width ? `${plain.slice(0, Math.max(0, width - 1))}…` : plain
    const coloured = row.state === "failed" ? paint(SGR.red, fitted) : row.state === "queued" ? paint(SGR.dim, fitted) : fitted
    return `${mark} ${coloured}`
  }

  const draw = () => {
    if (!options.live || rows.size === 0) return
    const now = performance.now()
    const width = Math.max(20, (options.stream.columns ?? 100) - 3)
    // Back to the first line drawn, then each line erased and rewritten.
    let out = drawn > 0 ? `\r\x1b[${drawn}A` : ""
    for (const row of rows.values()) out += `\x1b[2K${lineOf(row, now, width)}\n`
    drawn = rows.size
    options.stream.write(out)
  }

  const start = () => {
    if (!options.live || timer !== undefined || stopped) return
    timer = setInterval(() => {
      frame += 1
      draw()
    }, 100)
    timer.unref()
  }

  const rowOf = (label: string): Row => {
    const existing = rows.get(label)
    if (existing !== undefined) return existing
    const row: Row = { label, state: "queued", startedAt: undefined, endedAt: undefined, calls: 0, inputTokens: 0, outputTokens: 0, note: undefined }
    rows.set(label, row)
    return row
  }

  const update = (label: string, report: ProgressReport) => {
    if (stopped) return
    const row = rowOf(label)
    const now = performance.now()
    if (report.state !== "queued" && row.startedAt === undefined) row.startedAt = now
    if (report.state === "done" || report.state === "failed") row.endedAt = now
    row.state = report.state
    // A failure reports no counts: keep what the calls before it spent.
    if (report.state !== "failed") {
      row.calls = Math.max(row.calls, report.calls)
      row.inputTokens = Math.max(row.inputTokens, report.inputTokens)
      row.outputTokens = Math.max(row.outputTokens, report.outputTokens)
    }
    row.note = report.note
    start()
    draw()
  }

  return {
    listener: { report: update },
    request: (label) => {
      const row = rowOf(label)
      row.state = "waiting"
      row.startedAt = performance.now()
      start()
      draw()
      return {
        end: (failed) => {
          row.state = failed ? "failed" : "done"
          row.endedAt = performance.now()
          draw()
        }
      }
    },
    stop: () => {
      if (stopped) return
      if (timer !== undefined) clearInterval(timer)
      draw()
      stopped = true
    }
  }
}
