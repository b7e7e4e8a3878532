/**
 * `repeated_call_loop` (DECISIONS §23): the agent repeats calls that bring nothing new. A call is
 * *stale* when the same tool, with the same arguments (canonical JSON), already gave the same result
 * (the same text, or an error of the same class); a new result or a new user message is progress and
 * ends a stretch of stale calls. Within one stretch it fires when a call was made `min_repeats` times
 * in all, or when a cycle of calls (A, B, A, B, ...) came round `min_cycles` times.
 *
 * Arguments are content: on a content-free trace (calls without arguments) a call is stale only when
 * it failed again with the same error class, so a retry loop on one failure still shows while calls
 * whose arguments and results cannot be compared never do.
 */
import type { TraceEvent } from "../Traces/Model.js"
import { canonicalArguments } from "./Arguments.js"
import type { Check, Cited, RawFinding } from "./Check.js"
import { errorClassOf, firstWordsOf, listEvents, textKey } from "./Errors.js"
import type { TraceView } from "./View.js"

/** Cycles longer than this are not looked for (a loop of six different calls reads as progress). */
const LONGEST_CYCLE = 5
/** A finding cites at most this many of the loop's calls (the count is in the explanation). */
const CITED = 12

interface Made {
  readonly index: number
  readonly tool: string
  readonly signature: string
  /** The arguments as written, for the explanation. */
  readonly args: string
  readonly agent: string | undefined
}

/** Outcomes other than a result's text, marked so that no text is taken for one: an error of a class, an empty result, no answer. */
const ERROR = "\u0000error:"
const EMPTY = "\u0000empty"
const NONE = "\u0000none"

/**
 * What a call came back with, in a form two calls can be compared by: its result's text as Errors.ts
 * `textKey` has it (unmarked: most outcomes are texts, and a long one is not copied to be marked),
 * or a marked outcome.
 */
const outcomeOf = (view: TraceView, call: TraceEvent, answers: ReadonlyArray<number>): string => {
  const last = answers[answers.length - 1]
  const answer = last === undefined ? undefined : view.at(last)
  if (answer === undefined) return call.status === "error" ? ERROR + errorClassOf(call) : NONE
  if (last !== undefined && view.failed(last)) return ERROR + errorClassOf(answer)
  const text = answer.content.trim()
  if (text.length === 0) return EMPTY
  const key = textKey(text)
  // a text that starts as a mark does (a NUL character) is marked too
  return key.startsWith("\u0000") ? `\u0000text:${key}` : key
}

/** The calls of one tool that came back the same way, and the earliest of each signature among them. */
interface Group {
  readonly calls: Array<Lazy>
  readonly origins: Map<string, number>
  read: number
}

/** A call as the loop reads it: where it is, and its signature (tool and canonical arguments), made when first asked. */
class Lazy {
  private made: string | undefined
  private trimmed: string | undefined

  constructor(
    readonly index: number,
    private readonly tool: string,
    private readonly content: string
  ) {}

  /** The arguments as written, trimmed. */
  args(): string {
    return (this.trimmed ??= this.content.trim())
  }

  signature(): string {
    // without arguments two calls compare only by failing the same way
    const args = this.args()
    return (this.made ??= `${this.tool}\u0000${args.length > 0 ? canonicalArguments(args) : ""}`)
  }
}

/** One stretch of stale calls, and the thresholds it reached. */
interface Stretch {
  readonly stale: Array<Made>
  readonly bySignature: Map<string, Array<Made>>
  /** The earliest call of each signature with the same outcome (the loop's first turn). */
  readonly origins: Map<string, number>
  /** The longest cycle found: its period and how many calls matched the period before them. */
  cycle: { period: number; matched: number; start: number } | undefined
  repeated: string | undefined
}

const newStretch = (): Stretch => ({ stale: [], bySignature: new Map(), origins: new Map(), cycle: undefined, repeated: undefined })

export const repeatedCallLoop: Check = {
  id: "repeated_call_loop",
  title: "The agent repeated calls that brought nothing new",
  severity: "medium",
  rule:
    "The same tool was called with the same arguments (canonical JSON) and came back with the same result at least `min_repeats` times, or a cycle of calls came round `min_cycles` times with the same results, with no new result or user message in between; high when the run ended inside the loop (no new result and no final answer after it).",
  reads: "structure",
  playbooks: [
    "bias_stack/escalation_of_commitment.retry_loop",
    "robbins_culture/stability_misfit.too_high",
    "yerkes_dodson/over_aroused.retry_exhaustion",
    "grant_strengths/persistence.retry_escalation"
  ],
  fingerprint: ["tool", "agent"],
  thresholds: {
    min_repeats: { default: 3, minimum: 2, description: "Calls of one tool with the same arguments and the same result, in a stretch with nothing new, that make a loop." },
    min_cycles: { default: 3, minimum: 2, description: "Times a cycle of different calls (A, B, A, B, ...) comes round with the same results before it is a loop." }
  },
  run: (view, settings) => {
    // a call is stale only when an earlier call of its tool came back the same way: a trace that calls each tool once has none
    if (!view.repeatsATool) return []
    const minRepeats = Math.max(2, settings.threshold("min_repeats"))
    const minCycles = Math.max(2, settings.threshold("min_cycles"))
    // user messages are new input: a stretch of stale calls never spans one
    const userMessages = view.userMessages
    const findings: Array<RawFinding> = []
    // Calls by tool and outcome: only calls that came back the same way can be the same call again,
    // so arguments are put in canonical form (a JSON parse) only for those, most calls never.
    const groups = new Map<string, Map<string, Group>>()
    const history: Array<Lazy> = []
    const matched = new Array<number>(LONGEST_CYCLE + 1).fill(0)
    let stretch = newStretch()
    let nextUser = 0
    let lastCallIndex = -1

    const close = (endsRun: boolean): void => {
      // an empty stretch has nothing to report and nothing to reset (cycles count stale calls only)
      if (stretch.stale.length === 0) return
      const found = stretch
      stretch = newStretch()
      matched.fill(0)
      if (found.repeated === undefined && found.cycle === undefined) return
      findings.push(findingOf(found, endsRun && view.finalAnswer === undefined))
    }

    view.eachCall((call) => {
      if (call.call === undefined) return
      const event = view.at(call.call)
      if (event === undefined) return
      while (nextUser < userMessages.length && (userMessages[nextUser] ?? Infinity) < call.call) {
        nextUser++
        close(false)
      }
      const outcome = outcomeOf(view, event, call.answers)
      const lazy = new Lazy(call.call, call.tool, event.content)
      lastCallIndex = call.call
      let byOutcome = groups.get(call.tool)
      if (byOutcome === undefined) {
        byOutcome = new Map()
        groups.set(call.tool, byOutcome)
      }
      const group = byOutcome.get(outcome)
      let origin: number | undefined
      if (group === undefined) byOutcome.set(outcome, { calls: [lazy], origins: new Map(), read: 0 })
      else {
        // the earliest call of each signature with this outcome, each call's signature made once
        for (; group.read < group.calls.length; group.read++) {
          const earlier = group.calls[group.read]
          if (earlier !== undefined && !group.origins.has(earlier.signature())) group.origins.set(earlier.signature(), earlier.index)
        }
        origin = group.origins.get(lazy.signature())
        group.calls.push(lazy)
      }
      const stale = origin !== undefined && (lazy.args().length > 0 || outcome.startsWith(ERROR))
      history.push(lazy)
      if (!stale) {
        close(false)
        return
      }
      const signature = lazy.signature()
      const made: Made = { index: call.call, tool: call.tool, signature, args: lazy.args(), agent: event.role === "agent" ? event.actor : undefined }
      stretch.stale.push(made)
      if (!stretch.origins.has(signature)) stretch.origins.set(signature, origin ?? call.call)
      const same = stretch.bySignature.get(signature)
      if (same === undefined) stretch.bySignature.set(signature, [made])
      else same.push(made)
      // the origin (a call before the stretch) plus the stale calls of this signature
      if (stretch.repeated === undefined && 1 + (same?.length ?? 1) >= minRepeats) stretch.repeated = signature
      const at = history.length - 1
      for (let period = 2; period <= LONGEST_CYCLE; period++) {
        matched[period] = history[at - period]?.signature() === signature ? (matched[period] ?? 0) + 1 : 0
        const length = matched[period] ?? 0
        if (length < (minCycles - 1) * period) continue
        const cycle = history.slice(at - period + 1, at + 1).map((each) => each.signature())
        if (new Set(cycle).size < 2) continue
        if (stretch.cycle === undefined || length > stretch.cycle.matched) stretch.cycle = { period, matched: length, start: stretch.stale.length - length }
      }
    })
    close(lastCallIndex >= 0)
    return findings
  }
}

const findingOf = (stretch: Stretch, endedInside: boolean): RawFinding => {
  const cycle = stretch.cycle
  if (cycle !== undefined) {
    const loop = stretch.stale.slice(Math.max(0, cycle.start))
    const turn = loop.slice(0, cycle.period)
    const tools = [...new Set(turn.map((made) => made.tool))]
    const rounds = Math.floor(cycle.matched / cycle.period) + 1
    const origins = turn.flatMap((made) => {
      const origin = stretch.origins.get(made.signature)
      return origin === undefined ? [] : [origin]
    })
    const indices = loop.map((made) => made.index)
    const first = loop[0]
    return {
      cites: citesOf(indices, origins),
      explanation: `The calls ${turn.map((made) => made.tool).join(", ")} came round ${rounds} times with the same arguments and the same results (from events[${origins[0] ?? first?.index ?? 0}], repeated at ${listEvents(indices)}), with no new result in between${endedInside ? "; the run ended inside the loop" : ""}.`,
      severity: endedInside ? "high" : "medium",
      tool: tools.sort().join(","),
      agent: first?.agent
    }
  }
  const signature = stretch.repeated ?? ""
  const repeats = stretch.bySignature.get(signature) ?? []
  const origin = stretch.origins.get(signature)
  const first = repeats[0]
  const tool = first?.tool ?? signature.split("\u0000")[0] ?? ""
  const args = first?.args ?? ""
  const indices = repeats.map((made) => made.index)
  return {
    cites: citesOf(indices, origin === undefined ? [] : [origin]),
    explanation: `${tool} was called ${repeats.length + 1} times with the same arguments${args.length > 0 ? ` (${firstWordsOf(args, 60)})` : ""} and the same result: first at events[${origin ?? first?.index ?? 0}], then again at ${listEvents(indices)} with no new result between the repeats${endedInside ? "; the run ended inside the loop" : ""}.`,
    severity: endedInside ? "high" : "medium",
    tool,
    agent: first?.agent
  }
}

/** The first repetition first (where the loop began), then the call it repeated, then the rest of the loop. */
const citesOf = (repeats: ReadonlyArray<number>, origins: ReadonlyArray<number>): ReadonlyArray<Cited> => {
  const [first, ...rest] = repeats
  const order = first === undefined ? origins : [first, ...origins, ...rest]
  return [...new Set(order)].slice(0, CITED).map((event) => ({ event }))
}
