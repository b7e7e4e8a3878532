/**
 * Span-of-control signals (Graicunas 1933; Urwick 1956). From the crew's reporting graph: each
 * manager's span (direct reports), the maximum and mean span, the depth of the hierarchy, and
 * Graicunas's count of the relationships a superior must manage with n direct reports,
 * n(2^(n-1) + n - 1) = n direct single + n(n-1) cross + n(2^(n-1) - 1) direct group relationships.
 * Bottlenecks are managers over Urwick's limit of six interlocking reports, managers to whom
 * reports without decision authority must escalate everything, and middle managers through whom
 * half the crew reports. Cycles, missing managers and duplicate ids are reported, never thrown.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, gini, mean, ratio, round, signals } from "../../src/Catalogue/SignalKit.js"
import { authorityLevel, type CrewMember, crewGraph, type CrewGraph } from "../org_structure/signals.js"

export interface SpanTrace {
  readonly agents: ReadonlyArray<CrewMember>
  readonly incoming_request_rate?: number | undefined
}

/** Urwick (1956): no more than five, at most six, direct reports whose work interlocks. */
export const URWICK_LIMIT = 6

/** Graicunas (1933): relationships a superior manages with n direct reports, or null when not finite. */
export const graicunas = (n: number): number | null => {
  if (!Number.isInteger(n) || n <= 0) return 0
  const total = n * (2 ** (n - 1) + n - 1)
  return Number.isFinite(total) ? total : null
}

/** The three kinds of Graicunas relationships for n direct reports. */
export const graicunasBreakdown = (n: number): { direct_single: number; cross: number; direct_group: number | null } => {
  if (!Number.isInteger(n) || n <= 0) return { direct_single: 0, cross: 0, direct_group: 0 }
  const group = n * (2 ** (n - 1) - 1)
  return { direct_single: n, cross: n * (n - 1), direct_group: Number.isFinite(group) ? group : null }
}

/** Agents below `start` in the reporting graph (cycle-safe), excluding `start` itself. */
export const descendants = (graph: CrewGraph, start: number): Set<number> => {
  const seen = new Set<number>()
  const queue = [...(graph.reports[start] ?? [])]
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]
    if (node === undefined || node === start || seen.has(node)) continue
    seen.add(node)
    for (const next of graph.reports[node] ?? []) if (!seen.has(next)) queue.push(next)
  }
  return seen
}

export const spanSignals = (trace: SpanTrace): Signals => {
  const { agents } = trace
  const graph = crewGraph(agents)
  const authority = agents.map((a) => authorityLevel(a.decision_authority))
  const spans = graph.reports.map((r) => r.length)
  const managers = spans.flatMap((s, i) => (s > 0 ? [i] : []))
  const managerSpans = managers.map((i) => spans[i] ?? 0)
  const maxSpan = managerSpans.length === 0 ? 0 : Math.max(...managerSpans)
  const widest = managers.find((i) => (spans[i] ?? 0) === maxSpan)
  const id = (i: number): string => agents[i]?.id ?? String(i)
  const leaves = agents.flatMap((_, i) => ((spans[i] ?? 0) === 0 && (graph.managers[i]?.length ?? 0) > 0 ? [i] : []))
  const isRoot = (i: number) => (graph.managers[i]?.length ?? 0) === 0

  const overLimit = managers.filter((i) => (spans[i] ?? 0) > URWICK_LIMIT)
  const escalation = managers.filter((i) => {
    const reports = graph.reports[i] ?? []
    if (reports.length < 3) return false
    const powerless = reports.filter((r) => {
      const a = authority[r]
      return a !== null && a !== undefined && a <= 1
    }).length
    return ratio(powerless, reports.length) >= 0.5
  })
  const others = Math.max(agents.length - 1, 0)
  const chokepoints = managers.filter((i) => !isRoot(i) && ratio(descendants(graph, i).size, others) >= 0.5)
  const passThrough = managers.filter((i) => {
    const reports = graph.reports[i] ?? []
    const only = reports[0]
    return reports.length === 1 && only !== undefined && (spans[only] ?? 0) > 0
  })
  const bottleneckOrder: Array<number> = []
  for (const i of [...overLimit, ...escalation, ...chokepoints]) if (!bottleneckOrder.includes(i)) bottleneckOrder.push(i)

  const spanRecord: Record<string, number> = {}
  for (const i of managers.slice(0, 50)) spanRecord[id(i)] = spans[i] ?? 0

  const rate = trace.incoming_request_rate
  const apexManagers = graph.roots.filter((i) => !graph.orphans.includes(i) && (spans[i] ?? 0) > 0)
  const leavesUnderWidest = widest === undefined ? 0 : [...descendants(graph, widest)].filter((i) => leaves.includes(i)).length
  const meanSpan = mean(managerSpans)
  const shape =
    managers.length === 0
      ? "flat"
      : maxSpan > URWICK_LIMIT
        ? "wide"
        : graph.depth >= 3 && (meanSpan ?? 0) <= 2
          ? "tall_narrow"
          : "balanced"
  const defects = graph.cycleMembers.length + graph.missingManagers.length + graph.duplicateIds.length + graph.selfReports.length

  const reasons = new Map<number, Array<string>>()
  const note = (i: number, reason: string) => reasons.set(i, [...(reasons.get(i) ?? []), reason])
  for (const i of overLimit) note(i, `span ${spans[i] ?? 0} exceeds Urwick's limit of ${URWICK_LIMIT}`)
  for (const i of escalation) note(i, "most direct reports lack decision authority, so decisions escalate here")
  for (const i of chokepoints) note(i, "half the crew or more reports through this middle manager")
  for (const i of passThrough) note(i, "pass-through layer: one direct report, who is itself a manager")
  const highlights: Array<Highlight> = [
    ...[...reasons.entries()].map(([i, why]) => ({ ref: `agents[${i}]`, reason: why.join("; ") })),
    ...graph.cycleMembers.map((i) => ({ ref: `agents[${i}]`, reason: "sits on a reporting cycle" })),
    ...graph.withMissingManager.map((i) => ({ ref: `agents[${i}]`, reason: "reports to an agent that is not in the crew" })),
    ...graph.selfReports.map((i) => ({ ref: `agents[${i}]`, reason: "lists itself as its own manager" }))
  ]

  return signals(
    {
      agent_count: agents.length,
      managers: managers.length,
      max_span: maxSpan,
      max_span_agent: widest === undefined ? null : id(widest),
      mean_span: meanSpan,
      span_gini: gini(managerSpans),
      spans: spanRecord,
      depth: graph.depth,
      hierarchy_levels: graph.depth + 1,
      apex_count: graph.roots.length - graph.orphans.length,
      shape,
      graicunas_relationships: graicunas(maxSpan),
      graicunas_breakdown: graicunasBreakdown(maxSpan),
      over_urwick_limit: overLimit.map(id),
      escalation_bottlenecks: escalation.map(id),
      middle_chokepoints: chokepoints.map(id),
      pass_through_managers: passThrough.map(id),
      single_report_share: ratio(managerSpans.filter((s) => s === 1).length, managers.length),
      bottlenecks: bottleneckOrder.map(id),
      incoming_request_rate: rate ?? null,
      apex_request_rate: rate === undefined || apexManagers.length === 0 ? null : round(rate / apexManagers.length),
      widest_manager_request_rate:
        rate === undefined || leaves.length === 0 || widest === undefined ? null : round((rate * leavesUnderWidest) / leaves.length),
      cycle_members: graph.cycleMembers.map(id),
      missing_managers: [...graph.missingManagers],
      orphaned_agents: graph.orphans.length,
      duplicate_ids: [...graph.duplicateIds],
      structural_defects: defects
    },
    highlights
  )
}
