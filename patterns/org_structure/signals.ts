/**
 * Org-structure signals (Mintzberg 1979; Galbraith 1995). A crew's `reports_to` lists form a
 * directed graph (manager -> report); its `decision_authority` says where decisions may be taken.
 * From them: the shape of the structure (levels, spans, apexes, agents with two bosses), the
 * defects that make reporting lines unreliable (cycles, managers that are not in the crew,
 * duplicate ids), and the distribution of decision authority between the apex and the operating
 * core (Mintzberg's vertical centralisation). A deterministic `structure_hint` names the Mintzberg
 * configuration the graph looks like; the model decides.
 *
 * The graph helpers are exported for span_of_control, which reads the same graph for spans.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, gini, mean, ratio, round, signals } from "../../src/Catalogue/SignalKit.js"

export interface CrewMember {
  readonly id: string
  readonly role: string
  readonly reports_to?: ReadonlyArray<string> | undefined
  readonly decision_authority?: string | undefined
}

export interface CrewTrace {
  readonly agents: ReadonlyArray<CrewMember>
}

export interface CrewGraph {
  /** Number of agents (nodes are agent indices). */
  readonly size: number
  /** Direct reports of each agent, as indices, de-duplicated. */
  readonly reports: ReadonlyArray<ReadonlyArray<number>>
  /** Valid managers of each agent, as indices, de-duplicated. */
  readonly managers: ReadonlyArray<ReadonlyArray<number>>
  /** Agents with no valid manager (the apexes, plus orphans whose managers are all missing). */
  readonly roots: ReadonlyArray<number>
  /** Agents whose listed managers are all absent from the crew. */
  readonly orphans: ReadonlyArray<number>
  /** Manager ids named in `reports_to` that no agent carries, in first-seen order. */
  readonly missingManagers: ReadonlyArray<string>
  /** Agents that name at least one missing manager. */
  readonly withMissingManager: ReadonlyArray<number>
  /** Ids carried by more than one agent (references resolve to the first). */
  readonly duplicateIds: ReadonlyArray<string>
  /** Agents that list themselves as their manager (the self-line is ignored). */
  readonly selfReports: ReadonlyArray<number>
  /** Agents on a reporting cycle (strongly connected with another agent). */
  readonly cycleMembers: ReadonlyArray<number>
  /** Level of each agent: 1 for an apex, 1 + the deepest manager's level otherwise (a cycle counts as one level). */
  readonly levels: ReadonlyArray<number>
  /** Longest reporting chain in edges (0 for a flat crew). */
  readonly depth: number
}

const at = (xs: ReadonlyArray<number>, i: number): number => xs[i] ?? 0

/** Strongly connected components (iterative Tarjan); returns the component id of each node. */
export const components = (size: number, edges: ReadonlyArray<ReadonlyArray<number>>): Array<number> => {
  const index: Array<number> = new Array<number>(size).fill(-1)
  const low: Array<number> = new Array<number>(size).fill(0)
  const onStack: Array<boolean> = new Array<boolean>(size).fill(false)
  const component: Array<number> = new Array<number>(size).fill(-1)
  const stack: Array<number> = []
  let counter = 0
  let count = 0
  for (let start = 0; start < size; start++) {
    if (at(index, start) !== -1) continue
    const work: Array<{ node: number; next: number }> = [{ node: start, next: 0 }]
    index[start] = counter
    low[start] = counter
    counter += 1
    stack.push(start)
    onStack[start] = true
    while (work.length > 0) {
      const frame = work[work.length - 1]
      if (frame === undefined) break
      const v = frame.node
      const out = edges[v] ?? []
      if (frame.next < out.length) {
        const w = out[frame.next] ?? 0
        frame.next += 1
        if (at(index, w) === -1) {
          index[w] = counter
          low[w] = counter
          counter += 1
          stack.push(w)
          onStack[w] = true
          work.push({ node: w, next: 0 })
        } else if (onStack[w] === true) {
          low[v] = Math.min(at(low, v), at(index, w))
        }
      } else {
        work.pop()
        const parent = work[work.length - 1]
        if (parent !== undefined) low[parent.node] = Math.min(at(low, parent.node), at(low, v))
        if (at(low, v) === at(index, v)) {
          for (;;) {
            const w = stack.pop()
            if (w === undefined) break
            onStack[w] = false
            component[w] = count
            if (w === v) break
          }
          count += 1
        }
      }
    }
  }
  return component
}

/** Builds the reporting graph of a crew, tolerating cycles, missing managers and duplicate ids. */
export const crewGraph = (agents: ReadonlyArray<CrewMember>): CrewGraph => {
  const size = agents.length
  // Sets beside the ordered lists: `includes` on a growing list was quadratic in the crew (issue 27).
  const firstIndex = new Map<string, number>()
  const duplicates = new Set<string>()
  agents.forEach((agent, i) => {
    if (firstIndex.has(agent.id)) duplicates.add(agent.id)
    else firstIndex.set(agent.id, i)
  })
  const duplicateIds = Array.from(duplicates)
  const reports: Array<Array<number>> = agents.map(() => [])
  const managers: Array<Array<number>> = agents.map(() => [])
  const missing = new Set<string>()
  const withMissingManager: Array<number> = []
  const orphans: Array<number> = []
  const selfReports: Array<number> = []
  agents.forEach((agent, i) => {
    const listed = agent.reports_to ?? []
    let absent = 0
    let self = false
    const own = managers[i]
    const ownSet = new Set<number>()
    for (const managerId of listed) {
      const m = firstIndex.get(managerId)
      if (m === undefined) {
        absent += 1
        missing.add(managerId)
        continue
      }
      if (m === i) {
        self = true
        continue
      }
      const theirs = reports[m]
      if (own !== undefined && theirs !== undefined && !ownSet.has(m)) {
        ownSet.add(m)
        own.push(m)
        theirs.push(i)
      }
    }
    if (self) selfReports.push(i)
    if (absent > 0) withMissingManager.push(i)
    if (absent > 0 && (managers[i]?.length ?? 0) === 0) orphans.push(i)
  })
  const roots = agents.flatMap((_, i) => ((managers[i]?.length ?? 0) === 0 ? [i] : []))

  const component = components(size, reports)
  const componentSize = new Map<number, number>()
  for (const c of component) componentSize.set(c, (componentSize.get(c) ?? 0) + 1)
  const cycleMembers = agents.flatMap((_, i) => ((componentSize.get(at(component, i)) ?? 0) > 1 ? [i] : []))

  // Longest path over the condensation (each component one level), by Kahn's algorithm.
  const componentCount = componentSize.size
  const componentEdges: Array<Set<number>> = Array.from({ length: componentCount }, () => new Set<number>())
  const indegree: Array<number> = new Array<number>(componentCount).fill(0)
  reports.forEach((out, m) => {
    for (const r of out) {
      const from = at(component, m)
      const to = at(component, r)
      const set = componentEdges[from]
      if (from !== to && set !== undefined && !set.has(to)) {
        set.add(to)
        indegree[to] = at(indegree, to) + 1
      }
    }
  })
  const componentLevel: Array<number> = new Array<number>(componentCount).fill(1)
  const queue: Array<number> = []
  indegree.forEach((d, c) => {
    if (d === 0) queue.push(c)
  })
  for (let head = 0; head < queue.length; head++) {
    const c = at(queue, head)
    for (const next of componentEdges[c] ?? []) {
      componentLevel[next] = Math.max(at(componentLevel, next), at(componentLevel, c) + 1)
      indegree[next] = at(indegree, next) - 1
      if (at(indegree, next) === 0) queue.push(next)
    }
  }
  const levels = agents.map((_, i) => at(componentLevel, at(component, i)))
  const depth = levels.length === 0 ? 0 : Math.max(...levels) - 1
  return {
    size,
    reports,
    managers,
    roots,
    orphans,
    missingManagers: Array.from(missing),
    withMissingManager,
    duplicateIds,
    selfReports,
    cycleMembers,
    levels,
    depth
  }
}

/**
 * Decision authority on a 0..3 scale (none, advisory, bounded, full), or null when the text
 * names none of them. The keyword forms of the CrewAgent schema are read first.
 */
export const authorityLevel = (text: string | undefined): number | null => {
  if (text === undefined) return null
  const t = text.trim().toLowerCase()
  if (t.length === 0) return null
  const first = t.split(/[\s:;,.(-]+/)[0] ?? ""
  const keyword: Record<string, number> = { none: 0, advisory: 1, bounded: 2, full: 3 }
  const direct = keyword[first]
  if (direct !== undefined) return direct
  if (/\b(no authority|cannot decide|must ask|read.?only|no decisions?)\b/.test(t)) return 0
  if (/\b(up to|within|limited|only|below|under|max(imum)?|capped|with approval)\b/.test(t)) return 2
  if (/\b(final|unrestricted|any|all decisions|sole|full)\b/.test(t)) return 3
  if (/\b(advis\w*|recommend\w*|suggest\w*|propos\w*|review\w*)\b/.test(t)) return 1
  return null
}

const AUTHORITY_NAMES = ["none", "advisory", "bounded", "full"] as const

export type StructureHint =
  | "simple_structure"
  | "machine_bureaucracy"
  | "professional_bureaucracy"
  | "divisionalized"
  | "adhocracy"
  | "matrix"
  | "indeterminate"

/** The Mintzberg configuration the graph's shape and authority look like (a hint, not a verdict). */
export const structureHint = (graph: CrewGraph, authority: ReadonlyArray<number | null>): StructureHint => {
  const edges = graph.reports.reduce((sum, r) => sum + r.length, 0)
  if (graph.size === 1) return "simple_structure"
  if (edges === 0) return "adhocracy"
  const multiBoss = graph.managers.filter((m) => m.length > 1).length
  if (ratio(multiBoss, graph.size) >= 0.2) return "matrix"
  const managerIdx = graph.reports.flatMap((r, i) => (r.length > 0 ? [i] : []))
  const leaves = graph.reports.flatMap((r, i) => (r.length === 0 && (graph.managers[i]?.length ?? 0) > 0 ? [i] : []))
  const leafAuthority = leaves.flatMap((i) => {
    const a = authority[i]
    return a === null || a === undefined ? [] : [a]
  })
  const leafMean = mean(leafAuthority)
  const apexes = graph.roots.filter((i) => (graph.reports[i]?.length ?? 0) > 0)
  if (graph.depth === 1 && apexes.length === 1) {
    return leafMean !== null && leafMean >= 2 ? "professional_bureaucracy" : "simple_structure"
  }
  if (graph.depth >= 2) {
    const meanSpan = mean(managerIdx.map((i) => graph.reports[i]?.length ?? 0)) ?? 0
    if (meanSpan <= 1.5) return "machine_bureaucracy"
    const middle = managerIdx.filter((i) => (graph.managers[i]?.length ?? 0) > 0)
    return middle.length >= 2 ? "divisionalized" : "machine_bureaucracy"
  }
  return "indeterminate"
}

export const orgStructureSignals = (trace: CrewTrace): Signals => {
  const { agents } = trace
  const graph = crewGraph(agents)
  const authority = agents.map((a) => authorityLevel(a.decision_authority))
  const edges = graph.reports.reduce((sum, r) => sum + r.length, 0)
  const spans = graph.reports.map((r) => r.length)
  const managerSpans = spans.filter((s) => s > 0)
  const multiBoss = graph.managers.flatMap((m, i) => (m.length > 1 ? [i] : []))
  const leaves = agents.flatMap((_, i) => ((spans[i] ?? 0) === 0 && (graph.managers[i]?.length ?? 0) > 0 ? [i] : []))
  const classified = authority.flatMap((a) => (a === null ? [] : [a]))
  const authorityCounts: Record<string, number> = { none: 0, advisory: 0, bounded: 0, full: 0, unclassified: 0 }
  for (const a of authority) {
    const name = a === null ? "unclassified" : AUTHORITY_NAMES[a] ?? "unclassified"
    authorityCounts[name] = (authorityCounts[name] ?? 0) + 1
  }
  const totalAuthority = classified.reduce((s, a) => s + a, 0)
  const orphans = new Set(graph.orphans)
  const apexes = graph.roots.filter((i) => !orphans.has(i))
  const apexAuthority = apexes.reduce((s, i) => s + (authority[i] ?? 0), 0)
  const leafAuthority = leaves.flatMap((i) => {
    const a = authority[i]
    return a === null || a === undefined ? [] : [a / 3]
  })
  const fullAuthority = agents.flatMap((a, i) => (authority[i] === 3 ? [a.id] : []))
  const widest = spans.reduce((best, s, i) => (s > (spans[best] ?? 0) ? i : best), 0)
  const ids = (xs: ReadonlyArray<number>) => xs.map((i) => agents[i]?.id ?? String(i))

  const highlights: Array<Highlight> = [
    ...graph.cycleMembers.map((i) => ({ ref: `agents[${i}]`, reason: "sits on a reporting cycle" })),
    ...graph.withMissingManager.map((i) => ({ ref: `agents[${i}]`, reason: "reports to an agent that is not in the crew" })),
    ...graph.selfReports.map((i) => ({ ref: `agents[${i}]`, reason: "lists itself as its own manager" })),
    ...multiBoss.map((i) => ({ ref: `agents[${i}]`, reason: "reports to more than one agent (matrix line)" })),
    ...((spans[widest] ?? 0) > 0 ? [{ ref: `agents[${widest}]`, reason: `widest span: ${spans[widest] ?? 0} direct reports` }] : []),
    ...leaves.flatMap((i) => (authority[i] === 3 ? [{ ref: `agents[${i}]`, reason: "full decision authority in the operating core" }] : []))
  ]

  return signals(
    {
      agent_count: agents.length,
      reporting_lines: edges,
      apex_count: apexes.length,
      apex_ids: ids(apexes).slice(0, 20),
      depth: graph.depth,
      hierarchy_levels: graph.depth + 1,
      managers: managerSpans.length,
      operating_core: leaves.length,
      max_span: managerSpans.length === 0 ? 0 : Math.max(...managerSpans),
      mean_span: mean(managerSpans),
      multi_boss_agents: multiBoss.length,
      matrix_share: ratio(multiBoss.length, agents.length),
      missing_managers: [...graph.missingManagers],
      orphaned_agents: graph.orphans.length,
      cycle_members: ids(graph.cycleMembers),
      duplicate_ids: [...graph.duplicateIds],
      self_reports: graph.selfReports.length,
      authority_levels: authorityCounts,
      authority_declared: agents.filter((a) => a.decision_authority !== undefined).length,
      full_authority_agents: fullAuthority,
      apex_authority_share: edges === 0 || totalAuthority === 0 ? null : ratio(apexAuthority, totalAuthority),
      operating_core_authority: leafAuthority.length === 0 ? null : round(leafAuthority.reduce((s, a) => s + a, 0) / leafAuthority.length),
      authority_gini: gini(classified),
      structure_hint: structureHint(graph, authority)
    },
    highlights
  )
}
