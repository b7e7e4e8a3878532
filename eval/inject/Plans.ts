/**
 * One plan per check (issue 48, DECISIONS §23's definitions): the failure to inject, written
 * without a format, the checks it must raise and where, and the checks it may fairly raise too
 * (a definition that overlaps, such as a run that dies on a provider error having no final
 * answer). Each kit writes the plan in its format (Injectors.ts pairs them).
 */
import type { Carrier, Kit } from "./Kits/Kit.js"
import { answerWith, anyOf, callEvent, errorWith, type Expectation, failedResult, finishedWith, handoffTo, lastAgentMessage, stopWith } from "./Locate.js"
import type { Rng } from "./Random.js"
import type { Call, CheckId, Injection, ModelFailure, Result, Step, ToolSpec } from "./Scenario.js"
import {
  ACTION_TOOLS,
  againText,
  callText,
  contextOverflows,
  cut,
  providerFailures,
  READ_TOOLS,
  unknownToolNames,
  unknownToolText,
  validationText
} from "./Wording.js"

export interface Plan {
  readonly injection: Injection
  readonly expect: ReadonlyArray<Expectation>
  /** Checks whose definition the injected failure also meets: neither required nor counted against them. */
  readonly tolerated: ReadonlyArray<CheckId>
}

export type Planner = (kit: Kit, carrier: Carrier, rng: Rng) => Plan

const callId = (kit: Kit, rng: Rng) => (kit.provider === "anthropic" ? `toolu_01${rng.token(22)}` : `call_${rng.token(24)}`)

const callOf = (kit: Kit, rng: Rng, tool: string, input: Readonly<Record<string, unknown>>, marker: string): Call => ({
  id: callId(kit, rng),
  tool,
  args: JSON.stringify(input),
  input,
  marker
})

/** The same call again (a loop): same tool, same arguments, a new id. */
const again = (kit: Kit, rng: Rng, call: Call): Call => ({ ...call, id: callId(kit, rng) })

const okResult = (content: string): Result => ({ ok: true, content })

/** The words of a failure that any format keeps (the first words of its message). */
const wordsOf = (message: string) => message.slice(0, 40)

/** A tool that fails, the words that find it, the step. */
const failingAction = (kit: Kit, rng: Rng) => {
  const tool = rng.pick(ACTION_TOOLS)
  const { input, marker } = tool.args(rng)
  const call = callOf(kit, rng, tool.spec.name, input, marker)
  const failure = rng.pick(tool.failures)(input, rng)
  const step: Step = { kind: "calls", text: callText(tool.spec.name, rng), calls: [call], results: [{ ok: false, failure }] }
  return { tool, call, failure, step, input }
}

const declared = (specs: ReadonlyArray<ToolSpec>): ReadonlyArray<ToolSpec> => Array.from(new Map(specs.map((spec) => [spec.name, spec])).values())

/** tool_error_unrecovered: a tool fails, nobody retries it or says so, and the run answers as it would have. */
const toolErrorUnrecovered: Planner = (kit, _carrier, rng) => {
  const read = rng.chance(0.5)
  if (read) {
    const tool = rng.pick(READ_TOOLS)
    const { input, marker } = tool.args(rng, 0)
    const call = callOf(kit, rng, tool.spec.name, input, marker)
    const failure = rng.pick(tool.failures)(input, rng)
    return {
      injection: { declare: [tool.spec], at: rng.next(), steps: [{ kind: "calls", text: callText(tool.spec.name, rng), calls: [call], results: [{ ok: false, failure }] }], ending: { kind: "keep" } },
      expect: [{ check: "tool_error_unrecovered", locate: failedResult(call, wordsOf(failure.message)) }],
      tolerated: []
    }
  }
  const { tool, call, failure, step } = failingAction(kit, rng)
  return {
    injection: { declare: [tool.spec], at: rng.next(), steps: [step], ending: { kind: "keep" } },
    expect: [{ check: "tool_error_unrecovered", locate: failedResult(call, wordsOf(failure.message)) }],
    tolerated: []
  }
}

/** success_claim_after_error: an action fails and the final answer says it was done. */
const successClaimAfterError: Planner = (kit, carrier, rng) => {
  const { tool, call, failure, step, input } = failingAction(kit, rng)
  const claim = rng.pick(tool.claims)(input)
  const text = rng.chance(0.5) ? claim : `${carrier.facts.answer.trim()}\n\n${claim}`
  const claimEvent = answerWith(claim)
  const error = failedResult(call, wordsOf(failure.message))
  return {
    injection: { declare: [tool.spec], at: 0.6 + rng.next() * 0.4, steps: [step], ending: { kind: "answer", text, finish: "stop" } },
    expect: [
      { check: "success_claim_after_error", locate: claimEvent, also: [error] },
      { check: "tool_error_unrecovered", locate: error }
    ],
    tolerated: []
  }
}

/** repeated_call_loop: the same call, same arguments, 3 to 6 times with the same answer; or two calls cycling. */
const repeatedCallLoop: Planner = (kit, _carrier, rng) => {
  const cycle = rng.chance(0.3)
  const first = rng.pick(READ_TOOLS)
  const firstArgs = first.args(rng, 0)
  const firstCall = callOf(kit, rng, first.spec.name, firstArgs.input, firstArgs.marker)
  const firstResult = first.ok(firstArgs.input, rng)
  const steps: Array<Step> = []
  const calls: Array<Call> = []
  if (cycle) {
    const second = rng.pick(READ_TOOLS.filter((tool) => tool !== first))
    const secondArgs = second.args(rng, 0)
    const secondCall = callOf(kit, rng, second.spec.name, secondArgs.input, secondArgs.marker)
    const secondResult = second.ok(secondArgs.input, rng)
    const rounds = rng.int(3, 4)
    for (let round = 0; round < rounds; round++) {
      const a = round === 0 ? firstCall : again(kit, rng, firstCall)
      const b = round === 0 ? secondCall : again(kit, rng, secondCall)
      calls.push(a, b)
      steps.push({ kind: "calls", text: round === 0 ? callText(first.spec.name, rng) : againText(rng), calls: [a], results: [okResult(firstResult)] })
      steps.push({ kind: "calls", text: null, calls: [b], results: [okResult(secondResult)] })
    }
    return {
      injection: { declare: [first.spec, second.spec], at: rng.next(), steps, ending: { kind: "keep" } },
      expect: [{ check: "repeated_call_loop", locate: callEvent(firstCall), also: calls.map(callEvent) }],
      tolerated: []
    }
  }
  const times = rng.int(3, 6)
  for (let round = 0; round < times; round++) {
    const call = round === 0 ? firstCall : again(kit, rng, firstCall)
    calls.push(call)
    steps.push({ kind: "calls", text: round === 0 ? callText(first.spec.name, rng) : againText(rng), calls: [call], results: [okResult(firstResult)] })
  }
  return {
    injection: { declare: [first.spec], at: rng.next(), steps, ending: { kind: "keep" } },
    expect: [{ check: "repeated_call_loop", locate: callEvent(firstCall), also: calls.map(callEvent) }],
    tolerated: []
  }
}

/** unanswered_tool_call: one of two parallel calls never gets its result; or the run stops on a call. */
const unansweredToolCall: Planner = (kit, _carrier, rng) => {
  const [readA, readB] = rng.shuffle(READ_TOOLS)
  if (readA === undefined || readB === undefined) throw new Error("two read tools are needed")
  const argsA = readA.args(rng, 0)
  const callA = callOf(kit, rng, readA.spec.name, argsA.input, argsA.marker)
  if (rng.chance(0.5)) {
    const argsB = readB.args(rng, 0)
    const callB = callOf(kit, rng, readB.spec.name, argsB.input, argsB.marker)
    const lost = rng.chance(0.5) ? callB : callA
    const results = [lost === callA ? undefined : okResult(readA.ok(argsA.input, rng)), lost === callB ? undefined : okResult(readB.ok(argsB.input, rng))]
    return {
      injection: { declare: [readA.spec, readB.spec], at: rng.next(), steps: [{ kind: "calls", text: callText(readA.spec.name, rng), calls: [callA, callB], results }], ending: { kind: "keep" } },
      expect: [{ check: "unanswered_tool_call", locate: callEvent(lost) }],
      tolerated: []
    }
  }
  return {
    injection: { declare: [readA.spec], at: 1, steps: [{ kind: "calls", text: callText(readA.spec.name, rng), calls: [callA], results: [undefined] }], ending: { kind: "stop" } },
    expect: [{ check: "unanswered_tool_call", locate: callEvent(callA) }],
    // the run stopped on the call: it has no final answer either
    tolerated: ["empty_final_answer"]
  }
}

/** unknown_tool: a call to a tool the run never offered, answered by the framework's error, then the right tool. */
const unknownTool: Planner = (kit, carrier, rng) => {
  const tool = rng.pick(READ_TOOLS)
  const offered = declared([tool.spec])
  const known = Array.from(new Set([...carrier.facts.tools, ...offered.map((spec) => spec.name)]))
  // a near miss of the tool meant, or a built-in of another product
  const near = unknownToolNames([tool.spec.name]).filter((name) => !known.includes(name))
  const name = rng.pick(near.length > 0 && rng.chance(0.7) ? near.slice(0, 4) : unknownToolNames(known))
  const { input, marker } = tool.args(rng, 0)
  const wrong = callOf(kit, rng, name, input, marker)
  const right = callOf(kit, rng, tool.spec.name, input, marker)
  const error = unknownToolText(name, known, rng)
  return {
    injection: {
      declare: offered,
      at: rng.next(),
      steps: [
        { kind: "calls", text: callText(name, rng), calls: [wrong], results: [{ ok: false, failure: { type: "ToolNotFound", message: error } }] },
        { kind: "calls", text: null, calls: [right], results: [okResult(tool.ok(input, rng))] }
      ],
      ending: { kind: "keep" }
    },
    expect: [{ check: "unknown_tool", locate: callEvent(wrong) }],
    // the framework's "no such tool" is a tool error, retried under another name
    tolerated: ["tool_error_unrecovered"]
  }
}

/** invalid_tool_arguments: arguments that are not what the declared schema asks (broken JSON, a field missing or of the wrong type), then a valid retry. */
const invalidToolArguments: Planner = (kit, _carrier, rng) => {
  const tool = rng.pick(ACTION_TOOLS)
  const { input, marker } = tool.args(rng)
  const properties = Object.keys(input)
  const required = Array.isArray(tool.spec.parameters["required"]) ? tool.spec.parameters["required"].filter((key): key is string => typeof key === "string") : []
  const dropped = rng.pick(required.length > 0 ? required : properties)
  const variant = rng.pick(kit.provider === "anthropic" ? ["missing", "type", "extra"] : ["broken", "missing", "type", "extra"])
  let bad: Call
  let problem: string
  switch (variant) {
    case "broken": {
      const text = JSON.stringify(input)
      const args = rng.pick([text.slice(0, Math.max(12, Math.floor(text.length * 0.6))), text.replace(/"(\w+)":/, "$1:"), text.replace(/"/g, "'"), `${text.slice(0, -1)},}`])
      bad = { id: callId(kit, rng), tool: tool.spec.name, args, input: undefined, marker }
      problem = rng.pick(["Expecting ',' delimiter: line 1 column 58 (char 57)", "Unterminated string starting at: line 1 column 12 (char 11)", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"])
      break
    }
    case "missing": {
      const rest = Object.fromEntries(Object.entries(input).filter(([key]) => key !== dropped))
      bad = callOf(kit, rng, tool.spec.name, rest, marker)
      problem = `${dropped}\n  Field required [type=missing, input_value=${JSON.stringify(rest).slice(0, 60)}, input_type=dict]`
      if (!bad.args.includes(marker)) bad = { ...bad, marker: JSON.stringify(rest).slice(1, 30) }
      break
    }
    case "type": {
      const key = rng.pick(properties)
      const value = input[key]
      const wrongValue = typeof value === "number" ? `${(value / 100).toFixed(2)} USD` : typeof value === "string" ? rng.pick([42, true, [value]]) : String(value)
      bad = callOf(kit, rng, tool.spec.name, { ...input, [key]: wrongValue }, marker)
      problem = `${key}\n  Input should be a valid ${typeof value === "number" ? "integer" : typeof value === "string" ? "string" : "array"} [type=${typeof value === "number" ? "int_parsing" : "string_type"}, input_value=${JSON.stringify(wrongValue)}]`
      break
    }
    default: {
      const extra = rng.pick(["force", "dry_run", "cc", "notify", "urgent"])
      bad = callOf(kit, rng, tool.spec.name, { ...input, [extra]: true }, marker)
      problem = `${extra}\n  Extra inputs are not permitted [type=extra_forbidden, input_value=True, input_type=bool]`
    }
  }
  const good = callOf(kit, rng, tool.spec.name, input, marker)
  return {
    injection: {
      declare: [tool.spec],
      at: rng.next(),
      steps: [
        { kind: "calls", text: callText(tool.spec.name, rng), calls: [bad], results: [{ ok: false, failure: { type: "ValidationError", message: validationText(tool.spec.name, problem, rng) } }] },
        { kind: "calls", text: rng.pick([null, "Let me fix the arguments.", "Sorry, retrying with the right fields."]), calls: [good], results: [okResult(tool.ok(input, rng))] }
      ],
      ending: { kind: "keep" }
    },
    expect: [{ check: "invalid_tool_arguments", locate: callEvent(bad) }],
    tolerated: []
  }
}

/** truncated_output: the final answer stops at the token limit. */
const truncatedOutput: Planner = (_kit, carrier, rng) => {
  const text = cut(carrier.facts.answer, rng)
  return {
    injection: { declare: [], at: 1, steps: [], ending: { kind: "answer", text, finish: "length" } },
    expect: [{ check: "truncated_output", locate: finishedWith(["length", "max_tokens", "MAX_TOKENS"]), also: [answerWith(text.slice(0, 40))] }],
    tolerated: []
  }
}

/** A tool round that goes well, to vary what comes before an ending. */
const goodRound = (kit: Kit, rng: Rng): { readonly declare: ReadonlyArray<ToolSpec>; readonly steps: ReadonlyArray<Step> } => {
  if (rng.chance(0.4)) return { declare: [], steps: [] }
  const tool = rng.pick(READ_TOOLS)
  const { input, marker } = tool.args(rng, 0)
  return { declare: [tool.spec], steps: [{ kind: "calls", text: callText(tool.spec.name, rng), calls: [callOf(kit, rng, tool.spec.name, input, marker)], results: [okResult(tool.ok(input, rng))] }] }
}

/** empty_final_answer: the last model call ends normally with nothing in it. */
const emptyFinalAnswer: Planner = (kit, _carrier, rng) => {
  const round = goodRound(kit, rng)
  return {
    injection: { declare: round.declare, at: rng.next(), steps: round.steps, ending: { kind: "empty" } },
    expect: [{ check: "empty_final_answer", locate: lastAgentMessage }],
    tolerated: []
  }
}

/** turn_limit_reached: the run keeps searching until the framework's turn limit stops it. */
const turnLimitReached: Planner = (kit, _carrier, rng) => {
  if (kit.turnLimitText === undefined) throw new Error(`${kit.name} has no turn limit`)
  const limit = rng.pick([5, 6, 8, 10, 12, 15, 20, 25, 30])
  const rounds = rng.int(2, 4)
  const tool = rng.pick(READ_TOOLS.filter((each) => each.spec.name !== "get_job_status"))
  // each round asks something new: a turn limit, not a loop
  const seen = new Set<string>()
  const steps: Array<Step> = []
  for (let attempt = 0; steps.length < rounds && attempt < 50; attempt++) {
    const { input, marker } = tool.args(rng, attempt + 1)
    if (seen.has(marker)) continue
    seen.add(marker)
    steps.push({ kind: "calls", text: steps.length === 0 ? callText(tool.spec.name, rng) : rng.pick([null, "Not there yet; trying a different query.", "Let me look elsewhere."]), calls: [callOf(kit, rng, tool.spec.name, input, marker)], results: [okResult(tool.ok(input, rng))] })
  }
  return {
    injection: { declare: [tool.spec], at: 1, steps, ending: { kind: "turn_limit", limit } },
    expect: [{ check: "turn_limit_reached", locate: stopWith(kit.turnLimitText(limit)) }],
    tolerated: ["empty_final_answer"]
  }
}

/** A model failure of the kit's provider. */
const failureOf = (kit: Kit, failures: ReadonlyArray<ModelFailure>, rng: Rng) => rng.pick(failures.filter((failure) => failure.provider === kit.provider))

/** context_overflow: a long page goes into the conversation and the next model call is refused for its length. */
const contextOverflow: Planner = (kit, _carrier, rng) => {
  const failure = failureOf(kit, contextOverflows(rng), rng)
  const steps: Array<Step> = []
  if (rng.chance(0.6)) {
    const tool = READ_TOOLS.find((each) => each.spec.name === "fetch_url") ?? rng.pick(READ_TOOLS)
    const { input, marker } = tool.args(rng, 0)
    const page = Array.from({ length: rng.int(20, 60) }, (_, line) => `${line + 1}. ${tool.ok(input, rng).split("\n")[2] ?? "Entry"} (archived copy ${line})`).join("\n")
    steps.push({ kind: "calls", text: callText(tool.spec.name, rng), calls: [callOf(kit, rng, tool.spec.name, input, marker)], results: [okResult(page)] })
  }
  return {
    injection: { declare: steps.length > 0 ? READ_TOOLS.filter((each) => each.spec.name === "fetch_url").map((each) => each.spec) : [], at: 1, steps, ending: { kind: "model_error", failure } },
    expect: [{ check: "context_overflow", locate: errorWith(wordsOf(failure.message)) }],
    // a refused model call is a failed model call; the run has no answer after it
    tolerated: ["provider_error", "empty_final_answer"]
  }
}

/** provider_error: the agent's own model call fails (rate limit, outage, key). */
const providerError: Planner = (kit, _carrier, rng) => {
  const failure = failureOf(kit, providerFailures(rng), rng)
  return {
    injection: { declare: [], at: rng.next(), steps: [], ending: { kind: "model_error", failure } },
    expect: [{ check: "provider_error", locate: errorWith(wordsOf(failure.message)) }],
    tolerated: ["empty_final_answer"]
  }
}

const SPECIALISTS = ["Refunds agent", "Escalations agent", "Shipping agent", "Account agent", "Fraud review agent", "Tech support agent"]

/** handoff_unanswered: an agent hands the conversation over and the other never says a word. */
const handoffUnanswered: Planner = (_kit, carrier, rng) => {
  const from = carrier.facts.agents[carrier.facts.agents.length - 1] ?? "assistant"
  const to = rng.pick(SPECIALISTS.filter((name) => !carrier.facts.agents.includes(name)))
  return {
    injection: { declare: [], at: 1, steps: [{ kind: "handoff", from, to, reply: undefined }], ending: { kind: "stop" } },
    expect: [{ check: "handoff_unanswered", locate: handoffTo(to, from) }],
    tolerated: ["empty_final_answer"]
  }
}

/** handoff_ping_pong: two agents hand the conversation back and forth, nothing new in between. */
const handoffPingPong: Planner = (_kit, carrier, rng) => {
  const a = carrier.facts.agents[carrier.facts.agents.length - 1] ?? "assistant"
  const b = rng.pick([...carrier.facts.agents.filter((name) => name !== a), ...SPECIALISTS.slice(0, 2)])
  const trips = rng.int(2, 3)
  const steps: Array<Step> = []
  for (let trip = 0; trip < trips; trip++) {
    steps.push({ kind: "handoff", from: a, to: b, reply: undefined })
    steps.push({ kind: "handoff", from: b, to: a, reply: undefined })
  }
  return {
    injection: { declare: [], at: 1, steps, ending: { kind: "keep" } },
    expect: [{ check: "handoff_ping_pong", locate: handoffTo(b, a), also: [anyOf("the handoffs between them", [handoffTo(b, a), handoffTo(a, b)])] }],
    // where a handoff is a tool call (the Agents SDK's transfer_to_<agent>), the same call three times is a loop too
    tolerated: ["repeated_call_loop"]
  }
}

export const PLANS: { readonly [Check in CheckId]: Planner } = {
  tool_error_unrecovered: toolErrorUnrecovered,
  success_claim_after_error: successClaimAfterError,
  repeated_call_loop: repeatedCallLoop,
  unanswered_tool_call: unansweredToolCall,
  unknown_tool: unknownTool,
  invalid_tool_arguments: invalidToolArguments,
  truncated_output: truncatedOutput,
  empty_final_answer: emptyFinalAnswer,
  turn_limit_reached: turnLimitReached,
  context_overflow: contextOverflow,
  provider_error: providerError,
  handoff_unanswered: handoffUnanswered,
  handoff_ping_pong: handoffPingPong
}
