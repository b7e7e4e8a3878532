/**
 * The built-in redaction rules (DECISIONS §20): what a secret or a piece of personal data looks
 * like in a trace's text. Each rule's expression runs once over a string (Redactor.ts), so a rule
 * must
 * - start with what is rarest in it (a literal: `eyJ`, `://`, `@`), which V8 looks for first: an
 *   expression that starts with a lookbehind or a broad class is tried at every character
 *   (measured: `@` first ran 10x faster than the local part first), so what stands before such a
 *   literal is read by `value`;
 * - never start in the middle of a word or a number, so a failed check moves on in linear time;
 * - never match a placeholder (`[email:3f9a1c]`): redaction is idempotent;
 * - name the value to replace with `value` (the match, or one of its groups) and say whether the
 *   value is really one (`valid`: a checksum, a known prefix, enough entropy).
 * Expressions are written case by case (`[Pp]assword`) and run one after another: joined into one
 * alternation they ran 4x slower (V8 loses each one's literal search).
 */
import { isIPv6 } from "node:net"

/** `secrets` (the default) or `pii` too (`SVC_REDACT=secrets,pii`). */
export type RedactionClass = "secrets" | "pii"

export interface Rule {
  /** The placeholder's kind, `[kind:hash]`: lower case, digits and `_`. */
  readonly kind: string
  readonly class: RedactionClass
  /** The expression's source: no named groups, no flags (the redactor joins them). */
  readonly source: string
  /**
   * Where the value is, as offsets from the match's start (the whole match when absent; a start
   * below 0 reaches back before the match). `text` and `at` are the whole string and the match's
   * index in it, for a rule that reads around its match.
   */
  readonly value?: (match: string, text: string, at: number) => { readonly start: number; readonly end: number } | undefined
  /**
   * What the character before a match must not be (the match would start inside a word): checked
   * in code, since a leading lookbehind keeps V8 from searching for the literal after it.
   */
  readonly notAfter?: RegExp
  /** Whether the value is really one (a checksum, entropy); true when absent. */
  readonly valid?: (value: string) => boolean
  /**
   * A rule found by where the value stands (after `Bearer`, under a secret-like name, in a URL)
   * rather than by its form: a value it finds that another rule knows by form gets that kind
   * (`OPENAI_API_KEY=sk-proj-...` is an `openai_key`).
   */
  readonly byPlace?: boolean
  /**
   * Starts with a literal no other joinable rule can match at the same place (`eyJ`, `AKIA`,
   * `://`, `@`, the `sk-` family told apart by what follows): such rules run as one expression, one
   * scan for all of them (measured 22% faster than one each). A match that fails its checks then
   * hides no other joinable rule's match at that place.
   */
  readonly joinable?: boolean
}

/** Shannon entropy in bits per character. */
export const entropy = (value: string): number => {
  const counts = new Map<string, number>()
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1)
  let bits = 0
  for (const count of counts.values()) {
    const p = count / value.length
    bits -= p * Math.log2(p)
  }
  return bits
}

/** The Luhn checksum of a string of digits. */
export const luhn = (digits: string): boolean => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}

/** Card numbers by issuer prefix and length (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
const CARD_BRANDS: ReadonlyArray<readonly [RegExp, ReadonlyArray<number>]> = [
  [/^4/, [13, 16, 19]],
  [/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/, [16]],
  [/^3[47]/, [15]],
  [/^(6011|65|64[4-9])/, [16, 19]],
  [/^35(2[89]|[3-8])/, [16, 17, 18, 19]],
  [/^(30[0-5]|36|38|39)/, [14, 16, 19]],
  [/^62/, [16, 17, 18, 19]],
  [/^(50|5[6-9]|6\d)/, [12, 13, 14, 15, 16, 17, 18, 19]]
]

const isCard = (value: string): boolean => {
  const separators = new Set(value.replace(/\d/g, ""))
  if (separators.size > 1) return false
  const digits = value.replace(/\D/g, "")
  return CARD_BRANDS.some(([prefix, lengths]) => prefix.test(digits) && lengths.includes(digits.length)) && luhn(digits)
}

/** What stands before a value given as an id: `…id=`, `"…Id": "`, `span: `. */
const ID_BEFORE = /(?:id|trace|span)["']?\s*[:=]\s*["']?$/i

/** IBAN lengths by country (ISO 13616 registry). */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28, CZ: 24,
  DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27,
  GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18, NO: 15, OM: 23, PK: 24, PL: 28,
  PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28,
  TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20, YE: 30
}

/** An IBAN: its country's length and the ISO 7064 mod-97 check. */
export const isIban = (value: string): boolean => {
  const iban = value.replace(/ /g, "")
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false
  const moved = iban.slice(4) + iban.slice(0, 4)
  let remainder = 0
  for (const char of moved) {
    const code = char.charCodeAt(0)
    const digits = code >= 65 ? String(code - 55) : char
    for (const digit of digits) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97
  }
  return remainder === 1
}

/** Values a secret-like name holds that are not secrets: empty markers, references, masks. */
const NOT_SECRET =
  /^(?:null|none|nil|true|false|undefined|n\/a|redacted|hidden|masked|changeme|example|string|required|optional|\*+|x+|\.+|-+|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|<[^>]*>|%\(?[A-Za-z_][A-Za-z0-9_]*\)?s?|%[A-Za-z_][A-Za-z0-9_]*%|process\.env\.[A-Za-z0-9_]+|os\.environ.*|env\(.*)$/i

/** Names whose value is a secret whatever it looks like, once it is long enough. */
const PASSWORD_NAMES = /(?:password|passwd|pwd|passphrase|secret)$/i

/** How many of lower case, upper case, digits and other characters a value mixes. */
const characterClasses = (value: string): number =>
  [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((kind) => kind.test(value)).length

/** Whether a value under a secret-like name is one: a password of 6 characters or more, else 12 or more with entropy. */
export const isSecretValue = (name: string, value: string): boolean => {
  if (NOT_SECRET.test(value) || new Set(value).size < 4) return false
  if (PASSWORD_NAMES.test(name)) return value.length >= 6
  return value.length >= 12 && entropy(value) >= 3 && characterClasses(value) >= 2
}

/** The secret-like names (the last word of an identifier: `OPENAI_API_KEY` ends in `API_KEY`). */
const SECRET_NAME_WORDS = [
  "secret_access_key",
  "aws_secret_access_key",
  "client_secret",
  "secret_key",
  "private_key",
  "access_key",
  "access_token",
  "refresh_token",
  "auth_token",
  "id_token",
  "session_token",
  "bearer_token",
  "api_token",
  "api_key",
  "apikey",
  "api-key",
  "x-api-key",
  "passphrase",
  "password",
  "passwd",
  "pwd",
  "secret",
  "token",
  "credentials",
  "credential",
  "secret_value",
  "auth",
  "key"
]

/**
 * A secret-like name: one of the words alone, or as an identifier's last word after `_`, `.`, `-`
 * or a change of case (`OPENAI_API_KEY`, `accessToken`); the longer words also glued on
 * (`PGPASSWORD`, `AUTH_CLIENTSECRET`).
 */
const SECRET_NAME_RE = new RegExp(`(?:^|[_.-])(?:${SECRET_NAME_WORDS.map((word) => word.replace(/[_-]/g, "[_-]?")).join("|")})$`)
const GLUED_NAME_RE = /(?:secret|token|password|passwd|passphrase|apikey|accesskey|secretkey|privatekey|credentials?)$/
/** Names seen before: a trace's keys repeat (`type`, `content`), each is judged once. */
const secretNames = new Map<string, boolean>()

/** Whether a whole name (a JSON object's key) is secret-like. */
export const isSecretName = (name: string): boolean => {
  let known = secretNames.get(name)
  if (known === undefined) {
    // `accessToken` read as `access_token`
    const words = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase()
    known = name.length <= 64 && (SECRET_NAME_RE.test(words) || GLUED_NAME_RE.test(words))
    if (secretNames.size >= 4096) secretNames.clear()
    secretNames.set(name, known)
  }
  return known
}

/** How a secret-like name ends (its last word), checked before the whole name is read. */
const SECRET_NAME_TAIL = /(?:key|token|secret|password|passwd|passphrase|pwd|credentials?|auth|secret_value)$/i
/**
 * The value after a name's `:`, `=` or `=>` (at its index in `text`): quoted, up to its closing
 * quote; else up to a space, quote, bracket, `,` or `;`. Where it starts and ends in `text`.
 */
const assignedValue = (text: string, at: number): { readonly start: number; readonly end: number } | undefined => {
  let start = at + 1
  if (text[start] === ">" || text[start] === ",") start++
  while (text[start] === " " || text[start] === "\t") start++
  const quote = text[start]
  if (quote === "\"" || quote === "'" || quote === "`") {
    const close = text.indexOf(quote, start + 1)
    const newline = text.indexOf("\n", start + 1)
    if (close < 0 || (newline >= 0 && newline < close) || close - start - 1 > 4096) return undefined
    return { start: start + 1, end: close }
  }
  let end = start
  while (end < text.length && end - start < 4096 && !/[\s"'`,;{}()<>[\]]/.test(text[end] ?? "")) end++
  return { start, end }
}

/** What stands before an AWS secret access key's `ccess`: `secret_a`, `Secret A`, `SecretA`, `SECRET_A`. */
const SECRET_ACCESS_BEFORE = /(?:[Ss]ecret|SECRET)[_ .-]?[Aa]$/

/** The start of the run of `chars` that ends at `at` (at most `max` long). */
const runStart = (text: string, at: number, chars: RegExp, max: number): number => {
  let start = at
  while (start > 0 && at - start < max && chars.test(text[start - 1] ?? "")) start--
  return start
}

export const RULES: ReadonlyArray<Rule> = [
  // --- secrets ---------------------------------------------------------------------------------
  {
    kind: "private_key",
    class: "secrets",
    joinable: true,
    source: "-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[^\\u0000]{0,20000}?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\\s\\\\]{0,20000})"
  },
  { kind: "jwt", class: "secrets", joinable: true, notAfter: /[A-Za-z0-9_-]/, source: "eyJ[A-Za-z0-9_-]{6,}\\.eyJ[A-Za-z0-9_-]{6,}\\.[A-Za-z0-9_-]*" },
  { kind: "anthropic_key", class: "secrets", joinable: true, notAfter: /[A-Za-z0-9_-]/, source: "sk-ant-(?:api|admin|oat|sid)\\d{2}-[A-Za-z0-9_-]{20,}" },
  {
    kind: "openai_key",
    class: "secrets",
    joinable: true,
    notAfter: /[A-Za-z0-9_-]/,
    source: "sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48}(?![A-Za-z0-9]))"
  },
  { kind: "aws_key", class: "secrets", joinable: true, notAfter: /[A-Za-z0-9]/, source: "(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])" },
  {
    // an AWS secret access key has no form of its own (40 characters of base64), so it is found by
    // the words before it, in free text too (`aws configure set aws_secret_access_key …`, `the
    // secret access key is …`), where the `secret` rule, which wants `=` or `:`, misses it. From
    // `ccess`, rarer in text than the `s` of `secret`; the `secret a` before it is read backwards.
    kind: "aws_secret_key",
    class: "secrets",
    joinable: true,
    source: "(?:ccess|CCESS)[_ .-]?(?:[Kk]ey|KEY)[\\s\"'`:=>,()|]{1,8}(?:(?:is|was|to|of)[\\s\"'`:]{1,4})?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
    value: (match, text, at) =>
      SECRET_ACCESS_BEFORE.test(text.slice(Math.max(0, at - 8), at)) ? { start: match.length - 40, end: match.length } : undefined,
    // random base64 mixes cases and digits (40 characters without one of them: 1 in 4,000); a
    // word, a hex digest or a path does not
    valid: (value) => /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9/+]/.test(value) && entropy(value) >= 4
  },
  { kind: "github_token", class: "secrets", joinable: true, notAfter: /[A-Za-z0-9_]/, source: "(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])" },
  { kind: "gitlab_token", class: "secrets", joinable: true, notAfter: /[A-Za-z0-9_-]/, source: "gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,}" },
  { kind: "slack_token", class: "secrets", joinable: true, notAfter: /[A-Za-z0-9_-]/, source: "(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\\d-[A-Za-z0-9-]{10,})" },
  { kind: "slack_webhook", class: "secrets", joinable: true, source: "hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}" },
  { kind: "stripe_key", class: "secrets", joinable: true, notAfter: /[A-Za-z0-9_]/, source: "(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9]{24,})(?![A-Za-z0-9])" },
  { kind: "google_api_key", class: "secrets", joinable: true, notAfter: /[A-Za-z0-9_-]/, source: "AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])" },
  {
    kind: "bearer",
    class: "secrets",
    byPlace: true,
    joinable: true,
    notAfter: /[A-Za-z0-9]/,
    source: "(?:[Bb]earer|[Bb]asic|[Tt]oken)\\s+[A-Za-z0-9._~+/-]{12,}=*",
    value: (match) => {
      const start = match.search(/\s\S/) + 1
      return start > 0 ? { start, end: match.length } : undefined
    },
    valid: (value) => characterClasses(value) >= 2 && new Set(value).size >= 6
  },
  {
    // a URL's password (`postgres://app:s3cret@db`): the user stays, so who connected still reads
    kind: "password",
    class: "secrets",
    byPlace: true,
    joinable: true,
    source: "://[^\\s:/?#@\\[\\]\"'`<>]{0,128}:[^\\s/?#@\\[\\]\"'`<>]{1,256}@",
    value: (match, text, at) => {
      const colon = match.indexOf(":", 3)
      return colon < 0 || !/[A-Za-z0-9]/.test(text[at - 1] ?? "") ? undefined : { start: colon + 1, end: match.length - 1 }
    },
    valid: (value) => !NOT_SECRET.test(value)
  },
  {
    // found from the name's last word (`key`, `token`, `secret`, `pass…`, `pwd`, `credential`); the
    // whole name is read backwards from there and must be a secret-like one (`OPENAI_API_KEY`, not `monkey`)
    kind: "secret",
    class: "secrets",
    byPlace: true,
    // after `password` (its `://` also starts with `:`): a URL's scheme is no secret-like name
    joinable: true,
    // from the `:` or `=` (measured 1.5x faster than from the name's last word), or a quoted
    // name's `",` in a call (`setenv("API_TOKEN", "…")`); the name is read backwards from there
    source: `(?:[:=]>?|["'],)[ \t]*["'\`]?[^\\s"'\`,;{}()<>\\[\\]]`,
    value: (_match, text, separator) => {
      // a call's `"name", "value"`: the separator is the `,` after the name's closing quote
      const at = text[separator] === "\"" || text[separator] === "'" ? separator + 1 : separator
      // the name: back over spaces, a closing quote and a `]` (`os.environ['API_TOKEN'] = …`)
      let end = at
      while (end > 0 && at - end < 8 && (text[end - 1] === " " || text[end - 1] === "\t")) end--
      if (text[end - 1] === "\"" || text[end - 1] === "'") end--
      if (text[end - 1] === "]") end--
      if (text[end - 1] === "\"" || text[end - 1] === "'") end--
      if (!SECRET_NAME_TAIL.test(text.slice(Math.max(0, end - 12), end))) return undefined
      const start = runStart(text, end, /[A-Za-z0-9_.-]/, 64)
      // a placeholder's kind (`[secret:3f9a1c]`) is not a name
      if (start === end || text[start - 1] === "[") return undefined
      const name = text.slice(start, end)
      const span = assignedValue(text, at)
      if (span === undefined || !isSecretName(name) || !isSecretValue(name, text.slice(span.start, span.end))) return undefined
      return { start: span.start - separator, end: span.end - separator }
    }
  },
  // --- personal data ---------------------------------------------------------------------------
  {
    // found from its `@`; the local part is read backwards from there
    kind: "email",
    class: "pii",
    joinable: true,
    source: "@(?:[A-Za-z0-9-]{1,63}\\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])",
    value: (match, text, at) => {
      const start = runStart(text, at, /[A-Za-z0-9._%+-]/, 64)
      // `git@github.com:org/repo` is an SSH remote, no one's address
      return start === at || text.slice(start, at) === "git" ? undefined : { start: start - at, end: match.length }
    }
  },
  { kind: "iban", class: "pii", source: "(?<![A-Za-z0-9])[A-Z]{2}\\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])", valid: isIban },
  {
    kind: "card",
    class: "pii",
    source: "(?<![\\w.-])\\d(?:[ -]?\\d){11,18}(?![\\w-]|\\.\\d)",
    // a number given as an id (`span_id=3996513805973098`, `"traceId": "…"`) is that id, whatever its checksum
    value: (match, text, at) => (ID_BEFORE.test(text.slice(Math.max(0, at - 32), at)) ? undefined : { start: 0, end: match.length }),
    valid: isCard
  },
  {
    kind: "phone",
    class: "pii",
    source: "(?<![\\w+.-])(?:\\+[1-9]\\d{0,2}(?:[ .-]?\\(?\\d{1,4}\\)?){2,5}|\\(\\d{3}\\) ?\\d{3}[-. ]\\d{4}|\\d{3}[-.]\\d{3}[-.]\\d{4})(?![\\w-]|\\.\\d)",
    valid: (value) => {
      const digits = value.replace(/\D/g, "").length
      return value.startsWith("+") ? digits >= 8 && digits <= 15 : digits === 10
    }
  },
  {
    kind: "ipv4",
    class: "pii",
    source: "(?<![\\w.])(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?![\\w]|\\.\\d)",
    // loopback and the unspecified address point at no one
    valid: (value) => !value.startsWith("127.") && value !== "0.0.0.0"
  },
  {
    // from two colons close together (a hex digit first was tried at most letters); the hex
    // digits before the first colon are read backwards
    kind: "ipv6",
    class: "pii",
    source: ":[0-9A-Fa-f]{0,4}:(?:[0-9A-Fa-f]{0,4}:){0,5}(?:(?:\\d{1,3}\\.){3}\\d{1,3}|[0-9A-Fa-f]{1,4})?(?![\\w:])",
    value: (match, text, at) => {
      const start = runStart(text, at, /[0-9A-Fa-f]/, 4)
      return /[\w:.]/.test(text[start - 1] ?? "") ? undefined : { start: start - at, end: match.length }
    },
    valid: (value) => isIPv6(value) && value.replace(/[^0-9A-Fa-f]/g, "").length >= 4
  }
]
