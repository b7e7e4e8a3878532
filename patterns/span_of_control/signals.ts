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
import { authorityLevel, components, type CrewMember, crewGraph, type CrewGraph } from "../org_structure/signals.js"

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

/** Reach sets as bits take components × agents / 32 words: at most 32 MiB of them (5,000 agents take 3 MiB). */
const MAX_BITSET_WORDS = 8_388_608

/**
 * How many agents are below each agent (`descendants(graph, i).size` for every i), for every
 * agent at once: a search from every manager was agents × lines (issue 27: 5,000 nested agents
 * took half a second). Over the graph's strongly connected components (Tarjan numbers a component
 * after every component below it): where each component has at most one manager component (every
 * crew read from a trace: one manager each), the counts add up the tree; otherwise each
 * component's reach is a set of bits, the union of its reports' components'.
 */
export const descendantCounts = (graph: CrewGraph): Array<number> => {
  const component = components(graph.size, graph.reports)
  const count = component.reduce((max, c) => Math.max(max, c + 1), 0)
  const members: Array<Array<number>> = Array.from({ length: count }, () => [])
  component.forEach((c, i) => members[c]?.push(i))
  const below: Array<Array<number>> = Array.from({ length: count }, () => [])
  const parents: Array<number> = new Array<number>(count).fill(0)
  const linked = new Set<number>()
  graph.reports.forEach((reports, m) => {
    const from = component[m] ?? 0
    for (const r of reports) {
      const to = component[r] ?? 0
      if (from === to || linked.has(from * count + to)) continue
      linked.add(from * count + to)
      below[from]?.push(to)
      parents[to] = (parents[to] ?? 0) + 1
    }
  })
  // `closure[c]`: agents in c and in every component below it.
  const closure: Array<number> = new Array<number>(count).fill(0)
  if (parents.every((p) => p <= 1)) {
    for (let c = 0; c < count; c++) {
      closure[c] = (members[c]?.length ?? 0) + (below[c] ?? []).reduce((sum, d) => sum + (closure[d] ?? 0), 0)
    }
  } else if (count * Math.ceil(graph.size / 32) <= MAX_BITSET_WORDS) {
    const words = Math.ceil(graph.size / 32)
    const bits = new Uint32Array(count * words)
    for (let c = 0; c < count; c++) {
      const row = c * words
      for (const i of members[c] ?? []) bits[row + (i >>> 5)] = (bits[row + (i >>> 5)] ?? 0) | (1 << (i & 31))
      for (const d of below[c] ?? []) for (let w = 0; w < words; w++) bits[row + w] = (bits[row + w] ?? 0) | (bits[d * words + w] ?? 0)
      let total = 0
      for (let w = 0; w < words; w++) {
        let x = bits[row + w] ?? 0
        x -= (x >>> 1) & 0x55555555
        x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
        total += (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24)
      }
      closure[c] = total
    }
  } else {
    return graph.reports.map((_, i) => descendants(graph, i).size)
  }
  // An agent reaches the rest of its own component (a cycle) and everything below it.
  return component.map((c) => (closure[c] ?? 1) - 1)
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
  const below = managers.some((i) => !isRoot(i)) ? descendantCounts(graph) : []
  const chokepoints = managers.filter((i) => !isRoot(i) && ratio(below[i] ?? 0, others) >= 0.5)
  const passThrough = managers.filter((i) => {
    const reports = graph.reports[i] ?? []
    const only = reports[0]
    return reports.length === 1 && only !== undefined && (spans[only] ?? 0) > 0
  })
  const bottleneckOrder = Array.from(new Set([...overLimit, ...escalation, ...chokepoints]))

  const spanRecord: Record<string, number> = {}
  for (const i of managers.slice(0, 50)) spanRecord[id(i)] = spans[i] ?? 0

  const rate = trace.incoming_request_rate
  const orphans = new Set(graph.orphans)
  const apexManagers = graph.roots.filter((i) => !orphans.has(i) && (spans[i] ?? 0) > 0)
  const leafSet = new Set(leaves)
  const leavesUnderWidest = widest === undefined ? 0 : [...descendants(graph, widest)].filter((i) => leafSet.has(i)).length
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
