/**
 * Redaction (DECISIONS §20): secrets, and personal data when asked, replaced in a trace's text by
 * typed placeholders with a short keyed hash, `[email:3f9a1c]`.
 *
 * - Each rule's expression (Rules.ts, then the operator's own) runs once over each string; a match
 *   is checked (checksums, entropy) or the scan goes on from the next character. Rules start only
 *   at the start of a token, so each scan stays linear. Where two rules' values overlap, the one
 *   that starts first (then the longer) is replaced.
 * - A string holding JSON (a tool's arguments, a recorded request) is read as JSON: its values are
 *   redacted where they are, a value under a secret-like key (`"api_key": "..."`) as a secret,
 *   and the JSON written back compact; keys are never touched.
 * - The hash is an HMAC-SHA256 of the kind and the value under the scope's key, so the same value
 *   is the same placeholder across requests, batches and replicas of one scope, and nobody without
 *   the key can test a guess against it. Within one trace two values whose short hashes meet get
 *   longer ones, so two different values never read as one.
 * - Idempotent: no rule matches a placeholder, so redacting redacted text changes nothing.
 */
import * as Predicate from "effect/Predicate"
import { createHmac } from "node:crypto"
import { isSecretName, isSecretValue, type RedactionClass, RULES, type Rule } from "./Rules.js"
import { setOwn } from "../Text.js"

/** Redactions by kind (`{"email": 2, "aws_key": 1}`). */
export type RedactionCounts = Readonly<Record<string, number>>

/** The placeholder of a kind and hash. */
export const placeholder = (kind: string, hash: string): string => `[${kind}:${hash}]`

/** Any placeholder in a text. */
export const PLACEHOLDER = /\[([a-z][a-z0-9_]{0,31}):([0-9a-f]{6,16})\]/g

const SHORT = 6
const LONG = 12

export interface RedactorOptions {
  /** The classes to redact; empty: redaction is off. */
  readonly classes: ReadonlySet<RedactionClass>
  /** The operator's rules (SVC_REDACT_RULES), run after the built-in ones, with the `l` flag. */
  readonly extra?: ReadonlyArray<Rule>
}

/** One pass of redaction: its placeholders and counts (one trace, one hints object, one body). */
export interface RedactionPass {
  readonly text: (value: string) => string
  /** Many strings, scanned together (a trace's contents): each as `text` would redact it. */
  readonly texts: (values: ReadonlyArray<string>) => ReadonlyArray<string>
  /** A JSON value (a native shape, hints): its strings redacted, secret-like keys' values as secrets. */
  readonly json: (value: unknown) => unknown
  readonly counts: () => RedactionCounts
}

/** Redaction for one scope: its key is fixed, each pass has its own counts. */
export interface ScopedRedactor {
  readonly enabled: boolean
  readonly pass: () => RedactionPass
}

export interface Redactor {
  readonly enabled: boolean
  readonly classes: ReadonlySet<RedactionClass>
  /** The redactor of a scope, its key derived from the root key (cached per scope). */
  readonly forScope: (scope: string) => ScopedRedactor
}

interface Compiled {
  /** The rule of each alternative, in order (one rule: the expression is the rule's own). */
  readonly rules: ReadonlyArray<Rule>
  readonly expression: RegExp
}

/** The joinable rules as one expression (a group per rule), each other rule as its own. */
const compile = (rules: ReadonlyArray<Rule>, linear: boolean): ReadonlyArray<Compiled> => {
  const joined = rules.filter((rule) => rule.joinable === true)
  const alone = rules.filter((rule) => rule.joinable !== true)
  return [
    ...(joined.length === 0 ? [] : [{ rules: joined, expression: new RegExp(joined.map((rule) => `(${rule.source})`).join("|"), linear ? "gl" : "g") }]),
    ...alone.map((rule) => ({ rules: [rule], expression: new RegExp(rule.source, linear ? "gl" : "g") }))
  ]
}

/** A value found: where it is in the string, and its kind. */
interface Found {
  readonly start: number
  readonly end: number
  readonly rule: Rule
}

/** The number of capture groups an expression source opens. */
const groupCount = (source: string): number => (new RegExp(`${source}|`).exec("")?.length ?? 1) - 1

const classRank = (rule: Rule): number => (rule.class === "secrets" ? 0 : 1)

/** Every value each rule finds in `text`, checked, in no particular order. */
const findAll = (compiled: ReadonlyArray<Compiled>, text: string, into: Array<Found>): void => {
  for (const { expression, rules } of compiled) {
    expression.lastIndex = 0
    for (let match = expression.exec(text); match !== null; match = expression.exec(text)) {
      const at = match.index
      const whole = match[0]
      // the alternative that matched (joinable rules have no groups of their own)
      const rule = rules.length === 1 ? rules[0] : rules[match.findIndex((group, i) => i > 0 && group !== undefined) - 1]
      if (rule === undefined) {
        expression.lastIndex = at + 1
        continue
      }
      const inWord = rule.notAfter !== undefined && at > 0 && rule.notAfter.test(text[at - 1] ?? "")
      const span = inWord ? undefined : rule.value === undefined ? { start: 0, end: whole.length } : rule.value(whole, text, at)
      if (span !== undefined && span.end > span.start && (rule.valid === undefined || rule.valid(text.slice(at + span.start, at + span.end)))) {
        into.push({ start: at + span.start, end: at + span.end, rule })
      } else {
        // not one: go on from the next character (the rules start only where a token starts)
        expression.lastIndex = at + 1
      }
      if (whole.length === 0) expression.lastIndex = at + 1
    }
  }
}

/** A redactor with no classes: every pass returns what it is given. */
const OFF_PASS: RedactionPass = { text: (value) => value, texts: (values) => values, json: (value) => value, counts: () => ({}) }

/** No redaction: for tools that read files for themselves and for tests of reading alone, never for a request. */
export const NOT_REDACTING: ScopedRedactor = { enabled: false, pass: () => OFF_PASS }

export const makeRedactor = (rootKey: Uint8Array, options: RedactorOptions): Redactor => {
  const enabled = options.classes.size > 0
  const builtIn = compile(RULES.filter((rule) => options.classes.has(rule.class)), false)
  if (builtIn.some((compiled) => compiled.rules.length > 1 && groupCount(compiled.expression.source) !== compiled.rules.length)) {
    throw new Error("a joinable redaction rule has capture groups of its own")
  }
  const extra = compile(options.extra ?? [], true)
  // The rules that know a value by its form, whole-value, for what a rule by place finds.
  const byForm = RULES.filter((rule) => rule.byPlace !== true && options.classes.has(rule.class)).map(
    (rule) => [rule, new RegExp(`^(?:${rule.source})$`)] as const
  )
  const kindOf = (rule: Rule, value: string): string =>
    rule.byPlace === true ? byForm.find(([known, expression]) => expression.test(value) && (known.valid?.(value) ?? true))?.[0].kind ?? rule.kind : rule.kind
  const scopes = new Map<string, ScopedRedactor>()

  const forScope = (scope: string): ScopedRedactor => {
    const known = scopes.get(scope)
    if (known !== undefined) return known
    const key = createHmac("sha256", rootKey).update(`svc-redact:${scope}`).digest()
    const hashOf = (kind: string, value: string, length: number) =>
      createHmac("sha256", key).update(kind).update("\u0000").update(value).digest("hex").slice(0, length)

    const pass = (): RedactionPass => {
      if (!enabled) return OFF_PASS
      const counts: Record<string, number> = {}
      /** The value behind each placeholder of this pass, so two values never share one. */
      const owners = new Map<string, string>()
      const replace = (kind: string, value: string): string => {
        counts[kind] = (counts[kind] ?? 0) + 1
        const short = placeholder(kind, hashOf(kind, value, SHORT))
        const owner = owners.get(short)
        if (owner === undefined) {
          owners.set(short, value)
          return short
        }
        if (owner === value) return short
        const long = placeholder(kind, hashOf(kind, value, LONG))
        owners.set(long, value)
        return long
      }

      /** The values found in one string (offsets in it), replaced. */
      const apply = (text: string, found: Array<Found>): string => {
        if (found.length === 0) return text
        // the first to start; on a tie a secret before personal data (a URL's password before the
        // email its `user:password@host` looks like), then the longer
        found.sort((a, b) => a.start - b.start || classRank(a.rule) - classRank(b.rule) || b.end - a.end)
        let out = ""
        let copied = 0
        for (const { end, rule, start } of found) {
          if (start < copied) continue
          const value = text.slice(start, end)
          out += text.slice(copied, start) + replace(kindOf(rule, value), value)
          copied = end
        }
        return out + text.slice(copied)
      }

      /** Each string scanned by every rule (the built-in ones, then the operator's). */
      const scanMany = (texts: ReadonlyArray<string>): Array<string> =>
        texts.map((text) => {
          const found: Array<Found> = []
          findAll(builtIn, text, found)
          if (extra.length > 0) findAll(extra, text, found)
          return apply(text, found)
        })

      const json = (root: unknown): unknown => {
        // 1. the strings to scan, in order (JSON inside strings read as JSON)
        const pending: Array<string> = []
        const embedded = new Map<string, unknown>()
        const embeddedIn = (value: string): unknown => {
          const first = value.charCodeAt(0)
          // only `{...}` and `[...]` can be JSON here: most strings never reach the map (hashing a long key costs)
          if (first !== 123 && first !== 91) return undefined
          if (!embedded.has(value)) embedded.set(value, embeddedJson(value))
          return embedded.get(value)
        }
        const secretUnderName = (value: string, name: string | undefined) =>
          name !== undefined && isSecretName(name) && isSecretValue(name, value) && !isPlaceholder(value)
        const gather = (value: unknown, name?: string): void => {
          if (typeof value === "string") {
            if (value.length < 6 || secretUnderName(value, name)) return
            const inner = embeddedIn(value)
            if (inner !== undefined) gather(inner)
            else pending.push(value)
          } else if (Array.isArray(value)) {
            for (const item of value) gather(item)
          } else if (Predicate.isRecord(value)) {
            for (const key of Object.keys(value)) gather(value[key], key)
          }
        }
        gather(root)
        // 2. all of them scanned at once
        const scanned = scanMany(pending)
        let next = 0
        // 3. the value again, each string replaced by its scan (in the same order)
        const rebuild = (value: unknown, name?: string): unknown => {
          if (typeof value === "string") {
            if (value.length < 6) return value
            if (secretUnderName(value, name)) return replace("secret", value)
            const inner = embeddedIn(value)
            if (inner !== undefined) {
              const redacted = rebuild(inner)
              return redacted === inner ? value : JSON.stringify(redacted)
            }
            return scanned[next++] ?? value
          }
          if (Array.isArray(value)) {
            let changed = false
            const items = value.map((item) => {
              const redacted = rebuild(item)
              changed = changed || redacted !== item
              return redacted
            })
            return changed ? items : value
          }
          if (Predicate.isRecord(value)) {
            // copied only once a value changes: most objects have nothing to redact
            let copy: Record<string, unknown> | undefined
            const keys = Object.keys(value)
            keys.forEach((key, index) => {
              const item = value[key]
              const redacted = rebuild(item, key)
              if (redacted !== item && copy === undefined) {
                copy = {}
                for (const earlier of keys.slice(0, index)) setOwn(copy, earlier, value[earlier])
              }
              if (copy !== undefined) setOwn(copy, key, redacted)
            })
            return copy ?? value
          }
          return value
        }
        return rebuild(root)
      }

      const text = (value: string): string => {
        const redacted = json(value)
        return typeof redacted === "string" ? redacted : value
      }

      /** Many strings at once, each as `text` would redact it. */
      const texts = (values: ReadonlyArray<string>): ReadonlyArray<string> => {
        const redacted = json(values)
        return Array.isArray(redacted) ? redacted.map((item, i) => (typeof item === "string" ? item : values[i] ?? "")) : values
      }

      return { text, texts, json, counts: () => ({ ...counts }) }
    }

    const scoped: ScopedRedactor = { enabled, pass }
    scopes.set(scope, scoped)
    return scoped
  }

  return { enabled, classes: options.classes, forScope }
}

/** A whole value that is a placeholder (`PLACEHOLDER`, anchored). */
const WHOLE_PLACEHOLDER = new RegExp(`^${PLACEHOLDER.source}$`)
const isPlaceholder = (value: string): boolean => WHOLE_PLACEHOLDER.test(value)


/** The JSON value a string holds, when it is a JSON object or list; undefined otherwise. */
const embeddedJson = (value: string): unknown => {
  const first = value.charCodeAt(0)
  const last = value.charCodeAt(value.length - 1)
  // `{...}` or `[...]` without surrounding space (a tool's arguments, a recorded body)
  if (!((first === 123 && last === 125) || (first === 91 && last === 93))) return undefined
  if (nestedDeeperThan(value, MAX_EMBEDDED_DEPTH)) return undefined
  try {
    const parsed: unknown = JSON.parse(value)
    return parsed !== null && typeof parsed === "object" ? parsed : undefined
  } catch {
    return undefined
  }
}

/**
 * JSON nested deeper than this inside a string is scanned as text, not walked: the walk recurses,
 * and a string is not held to the body's SVC_API_MAX_DEPTH.
 */
const MAX_EMBEDDED_DEPTH = 256

/** Whether a JSON text opens more than `max` objects or lists inside each other (strings skipped). */
const nestedDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 92) i++
      else if (code === 34) inString = false
    } else if (code === 34) inString = true
    else if (code === 123 || code === 91) {
      if (++depth > max) return true
    } else if (code === 125 || code === 93) depth--
  }
  return false
}

/** Adds counts into a total. */
export const addCounts = (total: Record<string, number>, counts: RedactionCounts): void => {
  for (const [kind, count] of Object.entries(counts)) total[kind] = (total[kind] ?? 0) + count
}
