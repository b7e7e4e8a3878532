/**
 * `npm run check:corpus` (not in CI): every file of ../shared/corpus/ (real exports from public
 * repositories, see its PROVENANCE.md) read as `POST /v1/traces/normalize` would read it, with
 * the limits raised so that size never hides a misread: the format detected, or the refusal, and
 * per file the traces, events, messages, tool calls (with arguments), tool results, errors,
 * thoughts, handoffs, agents and skipped records. A Markdown table on stdout; the files stay out
 * of the repository and out of the tests.
 *
 *   npm run check:corpus [-- <corpus dir>]
 */
import { Either } from "effect"
import { readdirSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { errorKinds } from "../src/Errors.js"
import type { NormalizedTrace } from "../src/Traces/Model.js"
import { keepAsRead, normalizeTrace } from "../src/Traces/Normalize.js"
import { raisedLimits, traceFileBody } from "./trace-files.js"

const corpus = resolve(process.argv[2] ?? join(import.meta.dirname, "..", "..", "shared", "corpus"))

const files = (dir: string): Array<string> =>
  readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : [path]
  })

const config = { limits: raisedLimits }

const count = (traces: ReadonlyArray<NormalizedTrace>, test: (event: NormalizedTrace["events"][number]) => boolean) =>
  traces.reduce((sum, trace) => sum + trace.events.filter(test).length, 0)

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\s+/g, " ").slice(0, 140)

const rows: Array<string> = []
const tally = new Map<string, number>()
for (const path of files(corpus)) {
  const name = relative(corpus, path)
  if (name === "PROVENANCE.md") continue
  const body = path.endsWith(".yaml") || path.endsWith(".yml") ? undefined : traceFileBody(path)
  if (body === undefined) {
    rows.push(`| ${name} | (not JSON or JSON Lines: a recorded HTTP cassette) | | | | | | | | | | |`)
    tally.set("not a trace body", (tally.get("not a trace body") ?? 0) + 1)
    continue
  }
  const result = normalizeTrace(body, "auto", config.limits, keepAsRead)
  if (Either.isLeft(result)) {
    rows.push(`| ${name} | ${errorKinds[result.left._tag].kind}: ${cell(result.left.message)} | | | | | | | | | | |`)
    tally.set("refused", (tally.get("refused") ?? 0) + 1)
    continue
  }
  const { format, traces } = result.right
  tally.set(format, (tally.get(format) ?? 0) + 1)
  const of = (kind: string) => count(traces, (event) => event.kind === kind)
  const withArguments = count(traces, (event) => event.kind === "tool_call" && event.content.trim().length > 0)
  const agents = new Set(traces.flatMap((trace) => trace.agents)).size
  const skipped = traces.reduce((sum, trace) => sum + trace.skipped, 0)
  const events = traces.reduce((sum, trace) => sum + trace.events.length, 0)
  // A trace without message content (DECISIONS §18) is shown so: it is read, but not analysed.
  const absent = traces.every((trace) => trace.content === "absent") ? " (content absent)" : ""
  rows.push(
    `| ${name} | ${format}${absent} | ${traces.length} | ${events} | ${of("message")} | ${of("tool_call")} (${withArguments}) | ${of("tool_result")} | ${of("error")} | ${of("thought")} | ${of("handoff")} | ${agents} | ${skipped} |`
  )
}

process.stdout.write(
  [
    `Corpus: ${corpus}`,
    "",
    "| file | format (or refusal) | traces | events | messages | tool calls (with arguments) | results | errors | thoughts | handoffs | agents | skipped |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `Read: ${Array.from(tally).map(([format, n]) => `${format} ${n}`).join(", ")} (${rows.length} files)`,
    ""
  ].join("\n")
)
