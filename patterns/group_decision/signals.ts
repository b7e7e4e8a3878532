/**
 * Group decision signals. Vroom & Yetton (1973) describe five decision processes (AI, AII, CI,
 * CII, GII) and seven rules that remove processes which would endanger decision quality or
 * acceptance. The rules are evaluated here on the problem attributes the request lets us infer;
 * an attribute the request does not settle stays null and its rules do not fire, so the
 * feasible set is never narrowed on a guess.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, normalise, ratio, signals } from "../../src/Catalogue/SignalKit.js"

export interface GroupDecisionAgent {
  readonly name: string
  readonly role?: string | undefined
  readonly holds_unique_information?: boolean | undefined
  readonly implements_decision?: boolean | undefined
  readonly shares_goal?: boolean | undefined
  readonly preferred_option?: string | undefined
  readonly model?: string | undefined
}

export interface GroupDecisionRequest {
  readonly title: string
  readonly options: ReadonlyArray<string>
  readonly agents: ReadonlyArray<GroupDecisionAgent>
  readonly stakes: "low" | "medium" | "high" | "critical"
  readonly reversibility?: "reversible" | "partly_reversible" | "irreversible" | undefined
  readonly time_pressure?: "low" | "medium" | "high" | undefined
}

/** Vroom-Yetton processes, least to most participative (and least to most time-consuming). */
export const CODES = ["AI", "AII", "CI", "CII", "GII"] as const
export type Code = (typeof CODES)[number]

export const MODEL_OF_CODE: Readonly<Record<Code, string>> = {
  AI: "decide_alone",
  AII: "informed_decide",
  CI: "consult_individually",
  CII: "consult_group",
  GII: "group_consensus"
}

/** Problem attributes of the Vroom-Yetton tree; null when the request does not settle them. */
export interface Attributes {
  /** A: does the choice among options matter for quality? */
  readonly quality_requirement: boolean
  /** B: does the deciding orchestrator hold enough information on its own? */
  readonly leader_has_information: boolean | null
  /** C: is the problem structured (alternatives and needed information known)? */
  readonly structured: boolean
  /** D: must the implementing agents commit to the decision for it to work? */
  readonly commitment_required: boolean | null
  /** E: would the implementers carry out a decision taken without them? */
  readonly acceptance_if_alone: boolean | null
  /** F: do the agents share the goal the decision serves? */
  readonly goal_congruence: boolean | null
  /** G: are the agents likely to disagree over the preferred option? */
  readonly conflict_likely: boolean | null
}

const OPEN_ENDED = /^(other|others|tbd|unknown|something else|anything else|open|n\/a|\?+)$/i

const known = <A>(xs: ReadonlyArray<A | undefined>): Array<A> => xs.flatMap((x) => (x === undefined ? [] : [x]))

export const attributesOf = (request: GroupDecisionRequest): Attributes => {
  const agents = request.agents
  const openEnded = request.options.some((option) => OPEN_ENDED.test(option.trim()))
  const information = known(agents.map((a) => a.holds_unique_information))
  const implementing = known(agents.map((a) => a.implements_decision))
  const goals = known(agents.map((a) => a.shares_goal))
  const implementers = agents.filter((a) => a.implements_decision === true)
  const preferences = new Set(known(agents.map((a) => a.preferred_option)).map(normalise))
  const commitment = implementing.length === 0 ? null : implementing.some((x) => x)
  return {
    quality_requirement: request.stakes !== "low" && request.options.length >= 2,
    leader_has_information: information.length === 0 ? null : !information.some((x) => x),
    structured: request.options.length >= 2 && !openEnded,
    commitment_required: commitment,
    acceptance_if_alone:
      commitment === true
        ? known(implementers.map((a) => a.shares_goal)).length === 0
          ? null
          : !implementers.some((a) => a.shares_goal === false)
        : null,
    goal_congruence: goals.length === 0 ? null : !goals.some((x) => !x),
    conflict_likely: preferences.size === 0 ? null : preferences.size > 1
  }
}

/** A rule fires only when every attribute it tests is known and has the value it names. */
const is = (value: boolean | null, wanted: boolean): boolean => value === wanted

/** The seven Vroom-Yetton rules; each returns the processes it removes and its name. */
export const applyRules = (a: Attributes): { feasible: Array<Code>; fired: Array<string> } => {
  const removed = new Set<Code>()
  const fired: Array<string> = []
  const rule = (name: string, condition: boolean, codes: ReadonlyArray<Code>) => {
    if (!condition) return
    fired.push(name)
    codes.forEach((code) => removed.add(code))
  }
  const qr = a.quality_requirement
  rule("information", qr && is(a.leader_has_information, false), ["AI"])
  rule("goal_congruence", qr && is(a.goal_congruence, false), ["GII"])
  rule("unstructured_problem", qr && is(a.leader_has_information, false) && !a.structured, ["AI", "AII", "CI"])
  rule("acceptance", is(a.commitment_required, true) && is(a.acceptance_if_alone, false), ["AI", "AII"])
  rule(
    "conflict",
    is(a.commitment_required, true) && is(a.acceptance_if_alone, false) && is(a.conflict_likely, true),
    ["AI", "AII", "CI"]
  )
  rule("fairness", !qr && is(a.commitment_required, true) && is(a.acceptance_if_alone, false), ["AI", "AII", "CI", "CII"])
  rule(
    "acceptance_priority",
    is(a.commitment_required, true) && is(a.acceptance_if_alone, false) && is(a.goal_congruence, true),
    ["AI", "AII", "CI", "CII"]
  )
  return { feasible: CODES.filter((code) => !removed.has(code)), fired }
}

export const groupDecisionSignals = (request: GroupDecisionRequest): Signals => {
  const attributes = attributesOf(request)
  const { feasible, fired } = applyRules(attributes)
  // Least time-consuming feasible process (Vroom & Yetton's time-efficient choice); the rules
  // never remove GII together with every other process, so the set is never empty in practice.
  const chosen: Code | null = feasible[0] ?? null
  const agents = request.agents
  const preferences = known(agents.map((a) => a.preferred_option))
  const preferenceCounts: Record<string, number> = {}
  for (const p of preferences) preferenceCounts[normalise(p)] = (preferenceCounts[normalise(p)] ?? 0) + 1
  const modal = Math.max(0, ...Object.values(preferenceCounts))
  const optionKeys = new Set(request.options.map(normalise))
  const offMenu = agents.flatMap((a, i) =>
    a.preferred_option !== undefined && !optionKeys.has(normalise(a.preferred_option)) ? [i] : []
  )
  const models = known(agents.map((a) => a.model)).map(normalise)
  const modelCounts: Record<string, number> = {}
  for (const m of models) modelCounts[m] = (modelCounts[m] ?? 0) + 1
  const highlights: Array<Highlight> = [
    ...agents.flatMap((a, i) =>
      a.holds_unique_information === true ? [{ ref: `agents[${i}]`, reason: "holds information the decider lacks" }] : []
    ),
    ...agents.flatMap((a, i) =>
      a.shares_goal === false ? [{ ref: `agents[${i}]`, reason: "does not share the decision's goal" }] : []
    ),
    ...agents.flatMap((a, i) =>
      a.implements_decision === true ? [{ ref: `agents[${i}]`, reason: "must carry out the decision" }] : []
    ),
    ...offMenu.map((i) => ({ ref: `agents[${i}]`, reason: "prefers an option that is not on the list" })),
    ...request.options.flatMap((o, i) =>
      OPEN_ENDED.test(o.trim()) ? [{ ref: `options[${i}]`, reason: "open-ended option: problem not structured" }] : []
    )
  ]
  return signals(
    {
      option_count: request.options.length,
      agent_count: agents.length,
      stakes: request.stakes,
      reversibility: request.reversibility ?? null,
      time_pressure: request.time_pressure ?? null,
      quality_requirement: attributes.quality_requirement,
      leader_has_information: attributes.leader_has_information,
      structured: attributes.structured,
      commitment_required: attributes.commitment_required,
      acceptance_if_alone: attributes.acceptance_if_alone,
      goal_congruence: attributes.goal_congruence,
      conflict_likely: attributes.conflict_likely,
      information_holders: agents.filter((a) => a.holds_unique_information === true).length,
      implementers: agents.filter((a) => a.implements_decision === true).length,
      goal_divergent_agents: agents.filter((a) => a.shares_goal === false).length,
      rules_fired: fired,
      feasible_set: [...feasible],
      rule_based_code: chosen,
      rule_based_model: chosen === null ? null : MODEL_OF_CODE[chosen],
      distinct_preferences: Object.keys(preferenceCounts).length,
      preference_agreement: ratio(modal, preferences.length),
      off_menu_preferences: offMenu.length,
      distinct_models: Object.keys(modelCounts).length,
      same_model_share: ratio(Math.max(0, ...Object.values(modelCounts)), models.length)
    },
    highlights
  )
}
