/**
 * What the scripts and benches that read trace files share (scripts/check-corpus.ts,
 * scripts/checks-findings-digest.ts, bench/importers.ts, bench/checks.ts): the trace files under a
 * folder, a file's body as the service would parse it, and the service's limits raised so that
 * size never hides how a trace is read.
 */
import { ConfigProvider, Effect } from "effect"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { appConfig } from "../src/Config.js"

/** The configured limits with the trace limits (events, characters) raised out of the way. */
export const raisedLimits = Effect.runSync(
  appConfig.pipe(
    Effect.withConfigProvider(
      ConfigProvider.fromMap(
        new Map([
          ["SVC_API_MAX_TRACE_STEPS", "10000000"],
          ["SVC_API_MAX_MESSAGES", "10000000"],
          ["SVC_API_MAX_STRING_CHARS", "1000000000"],
          ["SVC_API_MAX_TOTAL_CHARS", "1000000000"]
        ])
      )
    )
  )
).limits

/** A file's body: JSON, else JSON Lines as the list of its records; undefined when it is neither. */
export const traceFileBody = (path: string): unknown => {
  const text = readFileSync(path, "utf8")
  try {
    return JSON.parse(text)
  } catch {
    try {
      return text.split("\n").filter((line) => line.trim().length > 0).map((line): unknown => JSON.parse(line))
    } catch {
      return undefined
    }
  }
}

/** The trace files (.json, .jsonl, .traj) under `dir`, in name order; none when it is absent. */
export const traceFilesUnder = (dir: string): Array<string> =>
  !existsSync(dir) ? [] : readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? traceFilesUnder(path) : /\.(json|jsonl|traj)$/.test(name) ? [path] : []
  })
