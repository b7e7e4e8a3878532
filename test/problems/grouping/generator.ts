/**
 * Variations of a labelled base failure (labelled.ts) as other runs of the SAME failure show it:
 * what a fleet changes from run to run (ids, numbers, timestamps, the names its deployments give
 * agents, tool-call arguments, the quoted values a model cites; never a tool's name, which is part
 * of the failure by DECISIONS §19) and what a model changes
 * in a title without rewording it (casing, punctuation, quote marks). Never paraphrases: a
 * reworded title may split a problem by design (DECISIONS §19). Deterministic: a seeded PRNG.
 *
 * Consistency: one replacement map per variation is applied to the title, the task, the outcome,
 * every event's content, and (for names) to `agents`, `actor`, `tool` and `to`; ids also to
 * `source` and the trace id. The cited event is varied around its quote and the quote with the
 * same map, so the quote stays verbatim in the varied content.
 *
 * `bcubed` scores a clustering against the labels (Bagga & Baldwin 1998; Amigó et al. 2009).
 */
import { Either, Predicate } from "effect"
import type { NormalizedTrace, TraceEvent } from "../../../src/Traces/Model.js"
import { makeRandom } from "../../redaction/generators.js"
import { type BaseFailure, LABELLED, normalizedFixture, type Severity } from "./labelled.js"

export interface Evidence {
  readonly event: number
  readonly quote: string
}

export interface Finding {
  readonly pattern: string
  readonly playbook: string | null
  readonly severity: Severity
  readonly title: string
  readonly evidence: ReadonlyArray<Evidence>
}

export interface Variation {
  readonly label: string
  readonly trace: NormalizedTrace
  readonly finding: Finding
}

// ---------------------------------------------------------------------------------------------
// Seeded PRNG

/** FNV-1a over a string: the seed of one variation. */
const hash = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

interface Rng {
  /** Uniform in [0, 1). */
  readonly next: () => number
  /** Uniform integer in [low, high]. */
  readonly int: (low: number, high: number) => number
  readonly pick: <A>(items: ReadonlyArray<A>, fallback: A) => A
  readonly chance: (p: number) => boolean
}

/** The redaction tests' seeded mulberry32 (test/redaction/generators.ts), with a fallback for an empty pick. */
const makeRng = (seed: number): Rng => {
  const random = makeRandom(seed)
  return { next: random.next, int: random.int, pick: (items, fallback) => (items.length === 0 ? fallback : random.pick(items)), chance: random.chance }
}

// ---------------------------------------------------------------------------------------------
// Names

/** Actor names the importers give by default: roles, not names a deployment chooses. */
const GENERIC = new Set(["assistant", "user", "system", "agent", "tool", "human"])
const NOUNS = ["forecast", "ledger", "orders", "records", "catalog", "inbox", "metrics", "notes", "ticket", "route", "quota", "vault", "atlas", "beacon", "harbor", "summit"]
const ROLES = ["helper", "worker", "planner", "desk", "bot", "specialist", "router", "steward", "scout", "clerk"]

const capitalise = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1)

/** A new name in the original's style (snake, kebab, spaced, Pascal, `Name(Role)`, one word). */
const styledName = (original: string, words: ReadonlyArray<string>): string => {
  const [first = "x", second = "y"] = words
  const capital = /^[A-Z]/.test(original)
  const cased = (word: string) => (capital ? capitalise(word) : word)
  if (/^[^()]+\([^()]+\)$/.test(original)) return `${capitalise(first)}(Simple${capitalise(second)})`
  if (original.includes(" ")) return `${cased(first)} ${second}`
  if (original.includes("__")) return `${first}__${second}`
  if (original.includes("_")) return words.map(cased).join("_")
  if (original.includes("-")) return words.map(cased).join("-")
  if (capital) return words.map(capitalise).join("")
  return `${first}${second}`
}

/** Agents, tools and named actors of a trace that a deployment names (generic roles left out). */
const namesOf = (trace: NormalizedTrace): { readonly agents: ReadonlySet<string>; readonly tools: ReadonlySet<string> } => {
  const agents = new Set<string>()
  const tools = new Set<string>()
  for (const agent of trace.agents) agents.add(agent)
  for (const event of trace.events) {
    if (event.tool !== undefined && event.tool.length > 0) tools.add(event.tool)
    if (event.to !== undefined && event.to.length > 0) agents.add(event.to)
    if (event.role === "agent") agents.add(event.actor)
    if (event.role === "tool") tools.add(event.actor)
  }
  const keep = (name: string) => name.trim().length > 0 && !GENERIC.has(name)
  return { agents: new Set([...agents].filter(keep)), tools: new Set([...tools].filter((name) => keep(name) && !agents.has(name))) }
}

const renames = (trace: NormalizedTrace, rng: Rng): ReadonlyMap<string, string> => {
  const { agents, tools } = namesOf(trace)
  const taken = new Set<string>([...agents, ...tools, ...GENERIC])
  const map = new Map<string, string>()
  const rename = (name: string, pools: readonly [ReadonlyArray<string>, ReadonlyArray<string>]) => {
    if (!rng.chance(0.85)) return
    for (let attempt = 0; attempt < 20; attempt++) {
      const words = [rng.pick(pools[0], "x"), rng.pick(pools[1], "y")]
      const candidate = attempt < 10 ? styledName(name, words) : styledName(name, [...words, rng.pick(NOUNS, "z")])
      if (!taken.has(candidate) && candidate !== name) {
        taken.add(candidate)
        map.set(name, candidate)
        return
      }
    }
  }
  // a name that is also a tool's (the Claude Agent SDK's `Agent`) stays, as tools' names do
  const toolNames = new Set(trace.events.flatMap((event) => (event.tool === undefined ? [] : [event.tool])))
  for (const agent of agents) if (!toolNames.has(agent)) rename(agent, [NOUNS, ROLES])
  // tools keep their names: the cited event's tool is part of the failure (DECISIONS §19: the same
  // complaint about another tool is another problem); their arguments vary instead
  return map
}

// ---------------------------------------------------------------------------------------------
// Quoted values of the title

/** Other values a run of the same failure quotes in its title (chosen by one index per variation). */
const QUOTED_ALTERNATIVES: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["Berlin", ["Lyon", "Madrid", "Oslo", "Vienna"]],
  ["relay refused", ["mailbox unavailable", "connection reset", "authentication failed", "message rejected"]],
  ["Permission denied", ["Access is denied", "Operation not permitted", "Read-only file system", "EACCES"]],
  ["geopy", ["shapely", "haversine", "pyproj", "osmnx"]],
  ["The Dispossessed", ["Kindred", "Middlemarch", "The Left Hand of Darkness", "Beloved"]],
  ["Tokyo", ["Osaka", "Jakarta", "Lagos", "Lima"]],
  ["CARROT", ["APPLE", "MANGO", "PEACH", "LEMON"]],
  ["Carrot", ["Apple", "Mango", "Peach", "Lemon"]],
  ["Design the feature architecture", ["Draft the data model", "Set up the project skeleton", "Define the API endpoints", "Plan the migration"]],
  ["Continue", ["Go on", "Keep going", "Please continue", "Proceed"]],
  ["gateway.latency.p99", ["gateway.latency.p95", "acquirer.latency.p99", "gateway.errors.rate", "card.auth.latency"]],
  ["max_uses_exceeded", ["quota_exceeded", "usage_limit_reached", "max_calls_exceeded", "rate_limited"]],
  ["Overloaded", ["overloaded_error", "Service Unavailable", "Server busy", "capacity exceeded"]],
  ["INV-1O42", ["INV-2O17", "INV-7O03", "INV-3O88", "INV-5O61"]],
  ["gpt-5", ["gpt-5-codex", "o4-mini", "gpt-4.1", "o3"]]
])
const FALLBACK_VALUES = ["amber", "cobalt", "saffron", "indigo", "ochre"]

/** The quoted segments of a title: '…', "…", `…`, ‘…’, “…”. */
const quotedIn = (title: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const match of title.matchAll(/(?:^|[\s(])(?:'([^']+)'|"([^"]+)"|`([^`]+)`|‘([^’]+)’|“([^”]+)”)(?=$|[^A-Za-z0-9])/g)) {
    const inner = match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5]
    if (inner !== undefined) found.push(inner)
  }
  return found
}

// ---------------------------------------------------------------------------------------------
// One variation's replacement map

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const HEX = "0123456789abcdef"
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
const PREFIXED = "(?:call|toolu|msg|resp|chatcmpl|sesn|trace|span|run|req|fc|item|evt)_[A-Za-z0-9]{6,}"
const HEX_ID = "(?:0x)?[0-9a-fA-F]{16,}"
const NUMBER = "[0-9]+"
const BEFORE = "(?<![A-Za-z0-9_])"
const AFTER = "(?![A-Za-z0-9_])"

interface Replacer {
  /** Names, quoted values, ids and numbers. */
  readonly all: (text: string) => string
  /** Names only (exact values: agents, actors, tools, `to`). */
  readonly name: (text: string) => string
  /** Ids only (sources). */
  readonly ids: (text: string) => string
}

const makeReplacer = (trace: NormalizedTrace, title: string, rng: Rng): Replacer => {
  const names = renames(trace, rng)
  const index = rng.int(0, 63)
  const quoted = new Map<string, string>()
  for (const value of quotedIn(title)) {
    if (names.has(value)) continue
    const alternatives = QUOTED_ALTERNATIVES.get(value)
    if (alternatives !== undefined) quoted.set(value, alternatives[index % alternatives.length] ?? value)
    else if (!/[0-9]/.test(value)) quoted.set(value, FALLBACK_VALUES[index % FALLBACK_VALUES.length] ?? value)
  }
  const memo = new Map<string, string>()
  const numbersMade = new Set<string>()
  const randomOf = (alphabet: string, length: number) => Array.from({ length }, () => alphabet.charAt(rng.int(0, alphabet.length - 1))).join("")
  const sameShapeHex = (text: string) =>
    text.replace(/[0-9a-fA-F]/g, (char) => {
      const digit = HEX.charAt(rng.int(0, 15))
      return /[A-F]/.test(char) ? digit.toUpperCase() : digit
    })
  const fresh = (token: string): string => {
    if (new RegExp(`^${UUID}$`).test(token)) return sameShapeHex(token)
    const prefixed = /^([a-z]+_)([A-Za-z0-9]+)$/.exec(token)
    if (prefixed !== null && new RegExp(`^${PREFIXED}$`).test(token)) return `${prefixed[1] ?? ""}${randomOf(ALNUM, (prefixed[2] ?? "").length)}`
    if (new RegExp(`^${HEX_ID}$`).test(token) && /[a-fA-F]/.test(token.replace(/^0x/, ""))) {
      return token.startsWith("0x") ? `0x${sameShapeHex(token.slice(2))}` : sameShapeHex(token)
    }
    if (/^[0-9]+$/.test(token)) {
      // Same number of digits, never the same value, and two numbers never become one (a leading
      // zero stays a leading zero).
      for (let attempt = 0; attempt < 20; attempt++) {
        const candidate = token.length === 1 ? String(rng.int(2, 9)) : token.startsWith("0") ? `0${randomOf("0123456789", token.length - 1)}` : `${rng.int(1, 9)}${randomOf("0123456789", token.length - 1)}`
        if (candidate !== token && !numbersMade.has(candidate)) {
          numbersMade.add(candidate)
          return candidate
        }
      }
      return token
    }
    return token
  }
  const lookup = (token: string): string => {
    const named = names.get(token) ?? quoted.get(token)
    if (named !== undefined) return named
    const known = memo.get(token)
    if (known !== undefined) return known
    const made = fresh(token)
    memo.set(token, made)
    return made
  }
  const words = [...names.keys(), ...quoted.keys()].sort((a, b) => b.length - a.length).map(escape)
  const wordsPart = words.length > 0 ? [`${BEFORE}(?:${words.join("|")})${AFTER}`] : []
  const idsPart = [`${BEFORE}${UUID}${AFTER}`, `${BEFORE}${PREFIXED}${AFTER}`, `${BEFORE}${HEX_ID}${AFTER}`]
  // Numbers: not inside a word ("HAT136", "p99"), but a unit may follow ("30s", "4o").
  const numberPart = [`(?<![A-Za-z0-9_])${NUMBER}(?![0-9_])`]
  const allPattern = new RegExp([...wordsPart, ...idsPart, ...numberPart].join("|"), "g")
  const idsPattern = new RegExp(idsPart.join("|"), "g")
  return {
    all: (text) => text.replace(allPattern, lookup),
    name: (text) => names.get(text) ?? text,
    ids: (text) => text.replace(idsPattern, lookup)
  }
}

// ---------------------------------------------------------------------------------------------
// Timestamps, arguments, title punctuation

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(.*)$/
const pad = (value: number, width: number) => String(value).padStart(width, "0")

/** The same instant format, shifted by whole seconds (the fraction and the zone suffix kept). */
const shiftTimestamp = (timestamp: string, seconds: number): string => {
  const match = ISO.exec(timestamp)
  if (match === null) return timestamp
  const [, year, month, day, hour, minute, second, fraction = "", zone = ""] = match
  const shifted = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) + seconds * 1000)
  return `${pad(shifted.getUTCFullYear(), 4)}-${pad(shifted.getUTCMonth() + 1, 2)}-${pad(shifted.getUTCDate(), 2)}T${pad(shifted.getUTCHours(), 2)}:${pad(shifted.getUTCMinutes(), 2)}:${pad(shifted.getUTCSeconds(), 2)}${fraction}${zone}`
}

const ARGUMENT_VALUES = ["Lisbon", "Nairobi", "Quito", "Hanoi", "report", "summary", "latest", "archive", "weekly"]

/** Other arguments for a tool call: short word-like string values and numbers changed, JSON only. */
const varyArguments = (content: string, keep: ReadonlySet<string>, rng: Rng): string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(content)
  } catch {
    return content
  }
  if (typeof parsed !== "object" || parsed === null) return content
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk)
    if (Predicate.isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]))
    if (typeof value === "string" && !keep.has(value) && /^[A-Za-z][A-Za-z ]{0,29}$/.test(value) && rng.chance(0.6)) return rng.pick(ARGUMENT_VALUES, value)
    if (typeof value === "number" && Number.isInteger(value) && rng.chance(0.6)) return value + rng.int(1, 50)
    return value
  }
  return JSON.stringify(walk(parsed))
}

/** Casing and punctuation a model changes without rewording. */
const retouchTitle = (title: string, rng: Rng): string => {
  let result = title
  if (rng.chance(0.4)) result = result.endsWith(".") ? result.slice(0, -1) : `${result}.`
  if (rng.chance(0.35)) {
    const first = result.charAt(0)
    result = `${first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase()}${result.slice(1)}`
  }
  if (rng.chance(0.3)) {
    const [open, close] = rng.pick<readonly [string, string]>([["\"", "\""], ["‘", "’"], ["`", "`"]], ["\"", "\""])
    result = result.replace(/(^|[\s(])'([^']+)'(?=$|[^A-Za-z0-9])/g, (_match, lead: string, inner: string) => `${lead}${open}${inner}${close}`)
  }
  if (rng.chance(0.2)) result = result.replace(/, /g, " - ")
  if (rng.chance(0.1)) result = result.toLowerCase()
  return result
}

// ---------------------------------------------------------------------------------------------
// Variations

const variation = (base: BaseFailure, trace: NormalizedTrace, rng: Rng): Variation => {
  const replace = makeReplacer(trace, base.title, rng)
  const seconds = rng.int(1, 400) * 86_400 + rng.int(0, 86_399)
  const keepValues = new Set(quotedIn(base.title))
  const quote = replace.all(base.quote)
  const events = trace.events.map((event, index): TraceEvent => {
    let content: string
    const at = index === base.event ? event.content.indexOf(base.quote) : -1
    if (at >= 0) {
      content = `${replace.all(event.content.slice(0, at))}${quote}${replace.all(event.content.slice(at + base.quote.length))}`
    } else {
      content = replace.all(event.kind === "tool_call" ? varyArguments(event.content, keepValues, rng) : event.content)
    }
    return {
      ...event,
      actor: replace.name(event.actor),
      content,
      source: replace.ids(event.source),
      ...(event.tool === undefined ? {} : { tool: replace.name(event.tool) }),
      ...(event.to === undefined ? {} : { to: replace.name(event.to) }),
      ...(event.timestamp === undefined ? {} : { timestamp: shiftTimestamp(event.timestamp, seconds) })
    }
  })
  const varied: NormalizedTrace = {
    ...trace,
    id: trace.id === null ? null : replace.all(trace.id),
    task: replace.all(trace.task),
    outcome: replace.all(trace.outcome),
    agents: trace.agents.map(replace.name),
    events
  }
  return {
    label: base.label,
    trace: varied,
    finding: {
      pattern: base.pattern,
      playbook: base.playbook,
      severity: base.severity,
      title: retouchTitle(replace.all(base.title), rng),
      evidence: [{ event: base.event, quote }]
    }
  }
}

/** `count` variations of a base failure over its normalized trace; the same seed gives the same ones. */
export const variations = (base: BaseFailure, normalizedTrace: NormalizedTrace, count: number, seed: number): ReadonlyArray<Variation> =>
  Array.from({ length: count }, (_, index) => variation(base, normalizedTrace, makeRng(hash(`${seed}:${base.label}:${index}`))))

const traces = new Map<string, NormalizedTrace>()
/** A base failure's normalized trace (read once per fixture). */
export const baseTrace = (base: BaseFailure): NormalizedTrace => {
  const known = traces.get(base.fixture)
  if (known !== undefined) return known
  const read = normalizedFixture(base.fixture)
  if (Either.isLeft(read)) throw new Error(read.left)
  traces.set(base.fixture, read.right)
  return read.right
}

/**
 * A fleet's runs over the whole table: at least `count` runs, every label at least 5 times, the
 * runs spread evenly over the labels and interleaved in a seeded order.
 */
export const runsOfTable = (count = 300, seed = 1): ReadonlyArray<Variation> => {
  const perLabel = Math.max(5, Math.floor(count / LABELLED.length))
  const extra = Math.max(0, count - perLabel * LABELLED.length)
  const runs = LABELLED.flatMap((base, index) => variations(base, baseTrace(base), perLabel + (index < extra ? 1 : 0), seed))
  const rng = makeRng(hash(`${seed}:order`))
  const shuffled = [...runs]
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = rng.int(0, i)
    const a = shuffled[i]
    const b = shuffled[j]
    if (a !== undefined && b !== undefined) {
      shuffled[i] = b
      shuffled[j] = a
    }
  }
  return shuffled
}

// ---------------------------------------------------------------------------------------------
// B-cubed

/**
 * B-cubed precision and recall of a clustering against labels (Bagga & Baldwin 1998; Amigó et
 * al. 2009): per item, precision = items of its cluster with its label / its cluster's size,
 * recall = items of its cluster with its label / items with its label; each averaged over items.
 * No items: 1 and 1 (nothing is misplaced).
 */
export const bcubed = (items: ReadonlyArray<{ readonly label: string; readonly cluster: string }>): { readonly precision: number; readonly recall: number } => {
  if (items.length === 0) return { precision: 1, recall: 1 }
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)
  const clusterSize = new Map<string, number>()
  const labelSize = new Map<string, number>()
  const both = new Map<string, number>()
  for (const item of items) {
    count(clusterSize, item.cluster)
    count(labelSize, item.label)
    count(both, JSON.stringify([item.cluster, item.label]))
  }
  let precision = 0
  let recall = 0
  for (const item of items) {
    const shared = both.get(JSON.stringify([item.cluster, item.label])) ?? 0
    precision += shared / (clusterSize.get(item.cluster) ?? 1)
    recall += shared / (labelSize.get(item.label) ?? 1)
  }
  return { precision: precision / items.length, recall: recall / items.length }
}
