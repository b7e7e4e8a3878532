/**
 * Reading an agent's words for what checks need of them: whether a message claims the work is done,
 * and whether it owns up to a failure, and which failure it speaks of. Deliberately narrow, English
 * first: a check that reads content says so (`reads: "content"`), and its precision is measured
 * (docs/checks.md).
 */
import { Lru } from "../Lru.js"

/** Past forms of verbs that do not end in -ed, as a completed action is told ("I've sent", "is set up", "I've let them know"). */
const IRREGULAR = "sent|made|done|built|rebuilt|written|wrote|rewritten|ran|begun|began|found|got|gotten|given|gave|taken|took|paid|told|kept|left|brought|bought|spent|undone|drawn|drew|shown|sold|held|laid|sped|won"
/** Past forms the same as the verb's base form: a past only after a subject or an auxiliary ("I've set", "is reset"), an order at a sentence's start ("Let me look"). */
const SAME_AS_BASE = "set|put|let|run|shut|split|reset|cut|read"
/** Participles that state a condition, not an action done ("is based on", "has been degraded since", "is expected to"). */
const STATIVE =
  "based|called|named|located|required|expected|needed|supposed|known|considered|related|concerned|interested|involved|designed|intended|used|caused|limited|affected|degraded|estimated|advised|recommended|blocked|allowed|permitted|scheduled to|supported|unchanged|unaffected|unrelated|logged in|signed in|tired|worried|surprised|pleased|excited"
const PARTICIPLE = `(?!(?:${STATIVE})\\b)(?:[a-z]{2,}ed|${IRREGULAR})`
const PAST = `(?:${PARTICIPLE}|${SAME_AS_BASE})`
/**
 * A statement that work is done, as agents word it: the agent's own completed action ("I've sent",
 * "we deployed"), a passive of completion ("has been issued", "is filed", "are saved"), a sentence
 * that opens with what was done ("Posted the update", "Deployed!", or in a headline's words without
 * an article, "Email sent to", "Ticket created in": "The backup stopped at 02:13" is no claim), or
 * the idioms of done-ness ("done", "all set", "succeeded", "went out", "is up", "on its way").
 */
const CLAIMS: ReadonlyArray<RegExp> = [
  new RegExp(`\\b(?:I|[Ww]e)(?:'ve|\u2019ve| have| had)?(?:\\s+(?:now|just|already|successfully|also|then))*\\s+${PAST}\\b`),
  new RegExp(`\\b(?:is|are|was|were|has been|have been|'s been|\u2019s been|got)(?:\\s+(?:now|already|successfully|all|fully|just|also))*\\s+${PAST}\\b`, "i"),
  new RegExp(`^${PARTICIPLE}(?=[\\s!.:,;]|$)`, "i"),
  new RegExp(`^(?!(?:the|a|an|this|that|these|those|my|our|your|its|their|his|her|it|he|she|they|there|you)\\s)(?:[\\p{L}\\p{N}#@'"_-]+\\s+){1,2}${PARTICIPLE}(?:\\s+(?:to|in|into|on|for|at|and|successfully)\\b|\\s*[!.:;,]|$)`, "iu"),
  /\b(?:done|all set|succeeded|successful(?:ly)?|complete(?:d)?|taken care of|finished|went (?:out|through)|(?:is|are) (?:now )?(?:up|live|in place)|on (?:its|their) way)\b/i
]

/**
 * Words by which a message owns up to a failure or to uncertainty. Not "retry" or "issue" alone: a
 * "retry budget", "issue the refund" or "the issue is filed" owns up to nothing, nor do "the new
 * timeout settings".
 */
const FAILURE_ADMITTED =
  /\b(?:error|errors|failed|fail(?:ure|ing)?|unable|could ?n[o']t|can ?n[o']t|cannot|not able|unavailable|did ?n[o']t|was ?n[o']t|sorry|apolog\w*|unfortunately|(?:try|trying) again|retrying|(?:will|I'll|let me|to) retry|(?:an|some) issues? (?:with|occurred|came up)|ran into (?:an |some )?issues?|problem|timed ?out|(?:a|the) timeout|missing|denied|rejected|not (?:yet )?(?:been )?(?:completed?|processed|done|installed|found|allowed|permitted))\b/i
/** Words by which the agent says it goes another way: "instead", "directly", "fix it and rerun", "fall back". */
const COURSE_CHANGED =
  /\b(?:instead|directly|another (?:way|approach|source|tool|route|option)|(?:a )?different (?:approach|way|tool|source|query|route)|alternative(?:ly)?|fall(?:ing)? ?back|manually|work(?:ing)? ?around|fix(?:ing)? (?:it|this|that|the)|re-?run|(?:try|trying) again|retrying|rather than)\b/i

/** True when the text owns up to a failure (which one: `namesFailure`). */
export const admitsFailure = (text: string): boolean => FAILURE_ADMITTED.test(text)

/** True when the text says the agent takes another way (after a failure: it worked around it). */
export const changesCourse = (text: string): boolean => COURSE_CHANGED.test(text)

/** The longest stretch of an answer read for claims, and the most sentences: an answer states its outcome early. */
const READ = 20_000
const SENTENCES = 60

/** Where a sentence ends: `.`, `!` or `?` before white space (`values-prod.yaml` stays whole), or a line break. */
const SENTENCE_BREAK = /(?<=[.!?])\s+|\s*\n\s*/

/** A text's sentences, as written, the first `SENTENCES` of its first `READ` characters. */
export const sentencesOf = (text: string): ReadonlyArray<string> =>
  text
    .slice(0, READ)
    .split(SENTENCE_BREAK, SENTENCES)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0)

/** True when a sentence states that work is done and does not own up to a failure. */
export const isClaim = (sentence: string): boolean => !FAILURE_ADMITTED.test(sentence) && CLAIMS.some((pattern) => pattern.test(sentence))

/** The sentences of a text that claim work is done (`isClaim`), in order. */
export const claimsOf = (text: string): ReadonlyArray<string> => sentencesOf(text).filter(isClaim)

/** Tools through which frameworks give the run's answer: smolagents' `final_answer`, pydantic-ai's `final_result`, `finish` (ReAct-style agents). Their arguments are the answer. */
export const ANSWER_TOOL = /^(?:final_answer|final_result(?:_\w+)?|finish)$/

/** Parts of a tool's name too generic to say what a claim is about. */
const GENERIC_PARTS: ReadonlySet<string> = new Set(["get", "set", "run", "call", "tool", "tools", "api", "use", "exec", "execute", "query", "fetch", "make", "do", "the", "and", "for", "with", "new", "mcp"])

/** The longest stretch of a text read for what it names. */
const NAMED_READ = 20_000

/** A text as `namesFailure` reads it: its first 20,000 characters, lower case. */
export const lowerOf = (text: string): string => text.slice(0, NAMED_READ).toLowerCase()

/** Stems by tool name, recently made: the same tools fail across traces, and cutting their names was a measurable part of reading failures. */
const stemsByTool = new Lru<string, ReadonlyArray<string>>(1_024)

/**
 * The distinctive parts of a tool's name, cut for inflection: a text that holds one is about the
 * tool's work (`issue_refund` → "issued", "refunded"; `bookFlight` → "booked", "flight").
 */
const stemsOf = (tool: string): ReadonlyArray<string> => {
  const known = stemsByTool.get(tool)
  if (known !== undefined) return known
  const stems = wordsOfTool(tool)
    .filter((part) => part.length >= 3 && !GENERIC_PARTS.has(part))
    .map((part) => (part.length > 4 ? part.slice(0, -1) : part))
  stemsByTool.set(tool, stems)
  return stems
}

const namesStem = (lower: string, stems: ReadonlyArray<string>): boolean => stems.some((stem) => lower.includes(stem))

/** The first words of tools that only read (fetch, search, look up): their failure loses information, it changes nothing. */
const READ_VERBS: ReadonlySet<string> = new Set(["get", "fetch", "search", "read", "query", "list", "lookup", "look", "find", "retrieve", "browse", "view", "check", "describe", "show", "load", "download", "scrape", "crawl", "open", "grep", "glob", "cat"])

/** The words of a tool's name, lower case (`fetchPage`, `fetch_page` → fetch, page). */
const wordsOfTool = (tool: string): ReadonlyArray<string> =>
  tool
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0)

/** True when the tool's name says it only reads: it starts with a verb of reading (`fetch_page`, `get_weather`), or it searches (`web_search`). */
export const onlyReads = (tool: string): boolean => {
  const words = wordsOfTool(tool)
  const [first] = words
  return first !== undefined && (READ_VERBS.has(first) || words.includes("search"))
}

/** Words by which an answer says what it rests on: "according to the search results", "based on the forecast". */
const SOURCE_NAMED = /\b(?:according to|based on|as (?:shown|reported|listed) (?:by|in))\b/i

/** Of these tools, those whose work a sentence of the text says the answer rests on ("according to the search results" for `search_docs`). */
export const restsOn = (text: string, tools: Iterable<string>): ReadonlyArray<string> => {
  const sources = sentencesOf(text).filter((sentence) => SOURCE_NAMED.test(sentence)).map(lowerOf)
  if (sources.length === 0) return []
  return [...tools].filter((tool) => {
    const stems = stemsOf(tool)
    return sources.some((sentence) => namesStem(sentence, stems))
  })
}

/** What names one failure in the agent's words (`namesFailure`). */
export interface FailureTerms {
  readonly tool: string
  /** The distinctive parts of the tool's name (`stemsOf`). */
  readonly stems: ReadonlyArray<string>
  /** The error's class when it is a code or a type (`503`, `PermissionError`), not plain words. */
  readonly code: string | undefined
  /** Distinctive values, lower case: the call's string arguments and the error's quoted names (`berlin`, `geopy`). */
  readonly values: ReadonlyArray<string>
}

/** A JSON string value (not a key), 3 to 60 characters. */
const JSON_VALUE = /"((?:[^"\\\n]|\\.){3,60})"(?!\s*:)/g
/** A quoted name in an error's text (`No module named 'geopy'`), not a key. */
const QUOTED = /'([^'\n]{3,60})'(?!\s*:)|"([^"\n]{3,60})"(?!\s*:)|`([^`\n]{3,60})`/g
/** Values that name nothing in particular. */
const COMMON: ReadonlySet<string> = new Set(["error", "errors", "message", "status", "type", "code", "detail", "details", "true", "false", "null", "none", "failed", "failure", "reason", "result"])
const TERMS = 8

/** What makes a value a word, or a code (`valuesIn`); made once: esbuild writes `/\p{L}/u` as a `new RegExp` where it stands, so inside the loop it made one per value. */
const LETTER = /\p{L}/u
const DIGIT = /\d/
const SIGN = /[^\p{L}\p{N}]/u

const valuesIn = (text: string, pattern: RegExp, into: Set<string>): void => {
  for (const match of text.matchAll(pattern)) {
    if (into.size >= TERMS) return
    const value = (match[1] ?? match[2] ?? match[3] ?? "").trim().toLowerCase()
    // a word of four letters or more (`berlin`, `geopy`), or a short code mixing digits and signs (`1:1`, `v2.1`): "ops" names nothing
    const named = LETTER.test(value) ? value.length >= 4 : DIGIT.test(value) && SIGN.test(value)
    if (named && !COMMON.has(value)) into.add(value)
  }
}

/**
 * The terms of a failure, each read when first asked (`namesFailure` asks for the stems first, and
 * most texts that name a failure name its tool's work): its tool, its class when a code, and values
 * of its call's arguments (bounded) and of its error's text.
 */
class Terms implements FailureTerms {
  private stemsRead: ReadonlyArray<string> | undefined
  private codeRead: { readonly code: string | undefined } | undefined
  private valuesRead: ReadonlyArray<string> | undefined

  constructor(
    readonly tool: string,
    private readonly args: string,
    private readonly errorText: string,
    private readonly errorClass: () => string
  ) {}

  get stems(): ReadonlyArray<string> {
    return (this.stemsRead ??= stemsOf(this.tool))
  }

  get code(): string | undefined {
    this.codeRead ??= { code: codeOf(this.errorClass()) }
    return this.codeRead.code
  }

  get values(): ReadonlyArray<string> {
    if (this.valuesRead === undefined) {
      const values = new Set<string>()
      valuesIn(this.args.slice(0, 2_000), JSON_VALUE, values)
      valuesIn(this.errorText.slice(0, 1_000), QUOTED, values)
      this.valuesRead = [...values]
    }
    return this.valuesRead
  }
}

/** An error's class when it is a code or a type, lower case. */
const codeOf = (errorClass: string): string | undefined => (errorClass.length >= 3 && !/\s/.test(errorClass) ? errorClass.toLowerCase() : undefined)

/** The terms of a failure: its tool, its class when a code, and values of its call's arguments (bounded) and of its error's text. */
export const failureTermsOf = (tool: string, args: string, errorText: string, errorClass: () => string): FailureTerms => new Terms(tool, args, errorText, errorClass)

const WORD_CHAR = /[\p{L}\p{N}_]/u

/** True when `term` occurs in `text` (both lower case) as a whole: not inside a longer word. */
const hasWord = (text: string, term: string): boolean => {
  for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
    if (!WORD_CHAR.test(text.charAt(at - 1)) && !WORD_CHAR.test(text.charAt(at + term.length))) return true
  }
  return false
}

/**
 * True when a text (`lowerOf`: read once however many failures it is compared with) names this
 * failure: its tool's work (`stemsOf`), its error's code, or one of its distinctive values.
 * `byTool: false` when the tool's work names nothing in particular (the tool also succeeded:
 * "according to the search results" may rest on that success).
 */
export const namesFailure = (lower: string, terms: FailureTerms, byTool = true): boolean =>
  (byTool && namesStem(lower, terms.stems)) || (terms.code !== undefined && hasWord(lower, terms.code)) || terms.values.some((value) => hasWord(lower, value))
