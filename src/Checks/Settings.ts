/**
 * SVC_CHECKS_FILE (DECISIONS §23): which checks run, their thresholds, and the errors a tool is
 * expected to return, for every scope and per scope. JSON or YAML:
 *
 * ```yaml
 * disabled: [unknown_tool]                  # off everywhere
 * thresholds:
 *   repeated_call_loop: { min_repeats: 4 }
 * expected_errors:
 *   - { tool: search, matches: "no results" }   # never fires a check (case-insensitive substring)
 * scopes:
 *   billing:                                # a key's name, or the shared scope its role names
 *     disabled: [handoff_ping_pong]
 *     expected_errors: [{ tool: charge_card, matches: "card declined" }]
 * ```
 * A scope's entry adds to the top level (its thresholds win). Unknown check ids, thresholds or keys
 * stop start-up, naming where. The YAML parser (250 KB of code) is loaded only to read a YAML file.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { Check, CheckSettings } from "./Check.js"
import type { ScopeChecks } from "./Run.js"

const Expected = Schema.Struct({ tool: Schema.String.pipe(Schema.minLength(1)), matches: Schema.String.pipe(Schema.minLength(1)) })
const Thresholds = Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Number }) })
const Part = Schema.Struct({
  disabled: Schema.optional(Schema.Array(Schema.String)),
  thresholds: Schema.optional(Thresholds),
  expected_errors: Schema.optional(Schema.Array(Expected))
})
const ChecksFile = Schema.Struct({
  ...Part.fields,
  scopes: Schema.optional(Schema.Record({ key: Schema.String, value: Part }))
}).annotations({ identifier: "ChecksFile" })
type Part = typeof Part.Type

/** The file's settings, resolved per scope name. */
export interface ChecksSettings {
  /** The settings of a scope by its name (a key's name or a shared scope's); `null`: the auth-off scope. */
  readonly forScope: (name: string | null) => ScopeChecks
}

interface Resolved {
  readonly disabled: ReadonlySet<string>
  readonly thresholds: ReadonlyMap<string, number>
  readonly expected: ReadonlyArray<{ readonly tool: string; readonly matches: string }>
}

const scopeChecksOf = (resolved: Resolved): ScopeChecks => ({
  enabled: (id) => !resolved.disabled.has(id),
  settingsOf: (check: Check): CheckSettings => ({
    threshold: (name) => resolved.thresholds.get(`${check.id}.${name}`) ?? check.thresholds?.[name]?.default ?? 0,
    expected: (tool, text) => {
      if (resolved.expected.length === 0) return false
      const lower = text.toLowerCase()
      return resolved.expected.some((entry) => entry.tool === tool && lower.includes(entry.matches))
    }
  })
})

/** Every check on, at its defaults. */
const defaults = scopeChecksOf({ disabled: new Set(), thresholds: new Map(), expected: [] })
export const DEFAULT_SETTINGS: ChecksSettings = { forScope: () => defaults }

/** Checks one part of the file against the registry: the first problem, named by where it is. */
const problemOf = (part: Part, where: string, checks: ReadonlyArray<Check>): string | undefined => {
  const byId = new Map(checks.map((check) => [check.id, check]))
  const ids = checks.map((check) => check.id).join(", ")
  for (const id of part.disabled ?? []) if (!byId.has(id)) return `${where}disabled: unknown check \`${id}\` (the checks: ${ids})`
  for (const [id, values] of Object.entries(part.thresholds ?? {})) {
    const check = byId.get(id)
    if (check === undefined) return `${where}thresholds: unknown check \`${id}\` (the checks: ${ids})`
    for (const [name, value] of Object.entries(values)) {
      const threshold = check.thresholds?.[name]
      if (threshold === undefined) {
        const known = Object.keys(check.thresholds ?? {})
        return `${where}thresholds.${id}: unknown threshold \`${name}\` (${known.length === 0 ? "the check has none" : `it has ${known.join(", ")}`})`
      }
      if (!Number.isInteger(value) || value < threshold.minimum) return `${where}thresholds.${id}.${name}: must be a whole number of at least ${threshold.minimum} (got ${value})`
    }
  }
  return undefined
}

const resolve = (parts: ReadonlyArray<Part>): Resolved => {
  const disabled = new Set<string>()
  const thresholds = new Map<string, number>()
  const expected: Array<{ tool: string; matches: string }> = []
  for (const part of parts) {
    for (const id of part.disabled ?? []) disabled.add(id)
    for (const [id, values] of Object.entries(part.thresholds ?? {})) for (const [name, value] of Object.entries(values)) thresholds.set(`${id}.${name}`, value)
    for (const entry of part.expected_errors ?? []) expected.push({ tool: entry.tool, matches: entry.matches.toLowerCase() })
  }
  return { disabled, thresholds, expected }
}

/** The file's document: JSON by its name, else YAML (which JSON also is). */
const documentOf = (text: string, file: string): Effect.Effect<unknown, string> => {
  const unreadable = (error: unknown) => `${file}: not ${file.endsWith(".json") ? "JSON" : "YAML or JSON"} (${error instanceof Error ? error.message.split("\n")[0] : "unreadable"})`
  if (file.endsWith(".json")) return Effect.try({ try: (): unknown => JSON.parse(text), catch: unreadable })
  return Effect.flatMap(Effect.promise(() => import("yaml")), (yaml) => Effect.try({ try: (): unknown => yaml.parse(text), catch: unreadable }))
}

/** The settings of a file's text, or why not (the message names the file and the place). */
export const parseChecksFile = (text: string, file: string, checks: ReadonlyArray<Check>): Effect.Effect<ChecksSettings, string> =>
  Effect.flatMap(documentOf(text, file), (raw) => settingsOf(raw, file, checks))

const settingsOf = (raw: unknown, file: string, checks: ReadonlyArray<Check>): Either.Either<ChecksSettings, string> => {
  const decoded = Schema.decodeUnknownEither(ChecksFile, { onExcessProperty: "error" })(raw ?? {})
  if (Either.isLeft(decoded)) return Either.left(`${file}: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left).split("\n").slice(0, 6).join(" ")}`)
  const settings = decoded.right
  const top = problemOf(settings, "", checks)
  if (top !== undefined) return Either.left(`${file}: ${top}`)
  for (const [name, part] of Object.entries(settings.scopes ?? {})) {
    const problem = problemOf(part, `scopes.${name}.`, checks)
    if (problem !== undefined) return Either.left(`${file}: ${problem}`)
  }
  const everywhere = scopeChecksOf(resolve([settings]))
  const scoped = new Map(Object.entries(settings.scopes ?? {}).map(([name, part]) => [name, scopeChecksOf(resolve([settings, part]))]))
  return Either.right({ forScope: (name) => (name === null ? everywhere : scoped.get(name) ?? everywhere) })
}
