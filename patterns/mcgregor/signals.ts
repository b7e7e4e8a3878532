/**
 * McGregor signals: the control measures of an orchestrator. Every step whose actor is not one of
 * the listed sub-agents is an orchestrator step; each orchestrator step is classified (by its type,
 * else by its wording) as a directive (how to do the work), a check (status polling, review,
 * verification), an override (discarding or redoing a sub-agent's output) or a re-assignment
 * (taking work away from a sub-agent). Counts are kept per sub-agent, and the task properties give
 * the control the task calls for (risk and irreversibility raise it). Shares are taken over the
 * orchestrator's acts: its steps other than tool results (observations) returned to it.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, mentionFinder, ratio, round, signals } from "../../src/Catalogue/SignalKit.js"

type Level = "low" | "medium" | "high"

export interface McgregorTrace {
  readonly steps: ReadonlyArray<{
    readonly type: string
    readonly content: string
    readonly actor: string
    readonly sub_agent?: string | undefined
    readonly tool?: string | undefined
  }>
  readonly sub_agents: ReadonlyArray<{ readonly name: string; readonly role?: string | undefined }>
  readonly task_properties: { readonly risk: Level; readonly complexity: Level; readonly reversibility: Level }
}

export const CONTROL_KINDS = ["directive", "check", "override", "reassignment"] as const
export type ControlKind = (typeof CONTROL_KINDS)[number]

const TYPE_RULES: Readonly<Record<ControlKind, RegExp>> = {
  directive: /directive|instruct|command|order|correct/i,
  check: /check|verif|review|inspect|validat|audit|monitor|status|poll/i,
  override: /override|reject|veto|revert|replace/i,
  reassignment: /re-?assign|handoff|hand_off|transfer/i
}

const CONTENT_RULES: Readonly<Record<ControlKind, RegExp>> = {
  directive:
    /\b(you must|must (use|call|run|follow|not|return|write)|do not|don'?t|exactly|strictly|only (use|call|return|write)|step \d|first[, ]+(call|run|use|open)|follow (these|this|the) (steps|instructions|template|format)|use (only )?the \w+ tool|word for word|in this order|no deviations?)\b/i,
  check:
    /\b(status (update|report|check)|report (back|progress|status)|show me|are you done|what is your progress|verify (your|the|that)|check (your|the) (work|output|result|progress)|let me (check|review|verify)|review(ing)? (your|the) (output|work|draft|result))\b/i,
  override:
    /\b(overrid\w*|discard (your|the|this)|ignore (your|the|this) (output|result|answer|plan|draft)|I('ll| will) do it myself|redo (it|this|your)|rewrit\w* (your|the|this)|replac\w* (your|the) (output|answer|result|plan|draft)|reject\w*|revert\w*|not acceptable)\b/i,
  reassignment:
    /\b(re-?assign\w*|hand(ing)? (this|it|the task) (over )?to|take over|taking over|move (this|it) to|pull\w* (it|this|the task) from)\b/i
}

const RESULT_TYPE = /observation|result|output|response|return/i
const PERMISSION = /(\?|\b(may I|should I|can I|shall I|please (confirm|approve)|awaiting (approval|confirmation|instructions)|waiting for (approval|instructions|your go))\b)/i

const LEVEL: Readonly<Record<Level, number>> = { low: 0, medium: 0.5, high: 1 }

/** The control kinds one orchestrator step exercises (by type, else by wording; may be several). */
export const classifyControl = (step: { readonly type: string; readonly content: string }): Array<ControlKind> =>
  CONTROL_KINDS.filter((kind) => TYPE_RULES[kind].test(step.type) || CONTENT_RULES[kind].test(step.content))

/** The control the task calls for: mean of risk and irreversibility, 0 (loose) .. 1 (tight). */
export const controlDemand = (properties: McgregorTrace["task_properties"]): number =>
  round((LEVEL[properties.risk] + (1 - LEVEL[properties.reversibility])) / 2)

export const mcgregorSignals = (trace: McgregorTrace): Signals => {
  const names = trace.sub_agents.map((a) => a.name)
  const nameSet = new Set(names)
  // The first sub-agent a step names, as a whole word in any case (SignalKit: one pass per step).
  const firstMentioned = mentionFinder(names)
  /** The sub-agent a step concerns: its sub_agent field, else the first sub-agent named in it, else "unassigned". */
  const target = (step: McgregorTrace["steps"][number]): string => {
    if (step.sub_agent !== undefined) return step.sub_agent
    const mentioned = firstMentioned(step.content)
    return (mentioned === undefined ? undefined : names[mentioned]) ?? "unassigned"
  }

  const zeroes = (): Record<string, number> => Object.fromEntries(names.map((n) => [n, 0]))
  const perKind: Record<ControlKind, Record<string, number>> = {
    directive: zeroes(),
    check: zeroes(),
    override: zeroes(),
    reassignment: zeroes()
  }
  const kindCounts: Record<ControlKind, number> = { directive: 0, check: 0, override: 0, reassignment: 0 }
  const ownSteps = zeroes()
  const orchestratorActors = new Set<string>()
  const highlights: Array<Highlight> = []
  let orchestratorSteps = 0
  let orchestratorActs = 0
  let directiveOrCheck = 0
  let anyControl = 0
  let orchestratorToolCalls = 0
  let permissionRequests = 0
  let run = 0
  let longestRun = 0
  const unknownTargets = new Set<string>()

  trace.steps.forEach((step, i) => {
    if (nameSet.has(step.actor)) {
      ownSteps[step.actor] = (ownSteps[step.actor] ?? 0) + 1
      run += 1
      longestRun = Math.max(longestRun, run)
      if (!RESULT_TYPE.test(step.type) && PERMISSION.test(step.content)) {
        permissionRequests += 1
        highlights.push({ ref: `steps[${i}]`, reason: `${step.actor} asks for permission or instructions` })
      }
      return
    }
    run = 0
    orchestratorSteps += 1
    orchestratorActors.add(step.actor)
    if (step.sub_agent !== undefined && !nameSet.has(step.sub_agent)) unknownTargets.add(step.sub_agent)
    // tool results returned to the orchestrator are not acts of management
    if (RESULT_TYPE.test(step.type)) return
    orchestratorActs += 1
    if (step.tool !== undefined && step.tool.length > 0) orchestratorToolCalls += 1
    const kinds = classifyControl(step)
    if (kinds.length === 0) return
    anyControl += 1
    if (kinds.includes("directive") || kinds.includes("check")) directiveOrCheck += 1
    const who = target(step)
    for (const kind of kinds) {
      kindCounts[kind] += 1
      perKind[kind][who] = (perKind[kind][who] ?? 0) + 1
    }
    highlights.push({ ref: `steps[${i}]`, reason: `orchestrator ${kinds.join(" + ")} concerning ${who}` })
  })

  const subAgentSteps = trace.steps.length - orchestratorSteps
  let mostControlled: string | null = null
  let mostControl = 0
  for (const name of names) {
    const total = CONTROL_KINDS.reduce((sum, kind) => sum + (perKind[kind][name] ?? 0), 0)
    if (total > mostControl) {
      mostControl = total
      mostControlled = name
    }
  }
  const demand = controlDemand(trace.task_properties)
  const directiveOrCheckShare = ratio(directiveOrCheck, orchestratorActs)

  return signals(
    {
      step_count: trace.steps.length,
      orchestrator_actors: Array.from(orchestratorActors),
      orchestrator_steps: orchestratorSteps,
      sub_agent_steps: subAgentSteps,
      orchestrator_share: ratio(orchestratorSteps, trace.steps.length),
      orchestrator_acts: orchestratorActs,
      directive_steps: kindCounts.directive,
      check_steps: kindCounts.check,
      override_steps: kindCounts.override,
      reassignment_steps: kindCounts.reassignment,
      directive_share: ratio(kindCounts.directive, orchestratorActs),
      check_share: ratio(kindCounts.check, orchestratorActs),
      directive_or_check_share: directiveOrCheckShare,
      control_act_share: ratio(anyControl, orchestratorActs),
      orchestrator_tool_calls: orchestratorToolCalls,
      steps_per_sub_agent: ownSteps,
      directives_per_sub_agent: perKind.directive,
      checks_per_sub_agent: perKind.check,
      overrides_per_sub_agent: perKind.override,
      reassignments_per_sub_agent: perKind.reassignment,
      checks_per_sub_agent_step: ratio(kindCounts.check, subAgentSteps),
      most_controlled_sub_agent: mostControlled,
      idle_sub_agents: names.filter((n) => (ownSteps[n] ?? 0) === 0),
      unknown_sub_agent_refs: [...unknownTargets],
      permission_requests: permissionRequests,
      longest_autonomous_run: longestRun,
      task_control_demand: demand,
      task_complexity: LEVEL[trace.task_properties.complexity],
      control_gap: orchestratorActs === 0 ? null : round(directiveOrCheckShare - demand)
    },
    highlights
  )
}
