/**
 * Traces and trees of spans (DECISIONS §12): spans grouped by trace id, arranged into a tree
 * (iteratively: no recursion over the input, cycles broken and counted), walked depth-first, and
 * laid out as a timeline of starts and ends in time order.
 */
import type { LogRecord, Span, SpanBody } from "./Shapes.js"
import { compareTimes, NANOS_PER_MS } from "./Times.js"

export interface TraceGroup {
  readonly traceId: string | null
  readonly spans: ReadonlyArray<Span>
  readonly logs: ReadonlyArray<LogRecord>
}

/** Spans and log records grouped by trace id, in first-seen order (those without one together). */
export const groupByTrace = (body: SpanBody): ReadonlyArray<TraceGroup> => {
  const groups = new Map<string, { spans: Array<Span>; logs: Array<LogRecord> }>()
  const groupOf = (traceId: string | undefined) => {
    const key = traceId ?? ""
    let group = groups.get(key)
    if (group === undefined) {
      group = { spans: [], logs: [] }
      groups.set(key, group)
    }
    return group
  }
  for (const span of body.spans) groupOf(span.traceId).spans.push(span)
  for (const log of body.logs) groupOf(log.traceId).logs.push(log)
  return Array.from(groups, ([key, group]) => ({ traceId: key === "" ? null : key, spans: group.spans, logs: group.logs }))
}

/**
 * Siblings by start time; of two starting together (clocks often tick in milliseconds), the one
 * that ended first goes first: a tool run of no measurable length before the call it fed.
 */
const byStart = (a: Span, b: Span): number => compareTimes(a.startNanos, b.startNanos) || compareTimes(a.endNanos, b.endNanos)
const byStartOnly = (a: Span, b: Span): number => compareTimes(a.startNanos, b.startNanos)

export interface SpanTree {
  /** Roots (no parent, a dangling parent, or where a cycle was broken), by start time. */
  readonly roots: ReadonlyArray<Span>
  readonly childrenOf: (span: Span) => ReadonlyArray<Span>
  readonly parentOf: (span: Span) => Span | undefined
  /** Parent cycles broken (each turns one span of the cycle into a root). */
  readonly cyclesBroken: number
}

/**
 * Arranges one trace's spans into a tree: children by start time, missing and dangling parents
 * making roots, each parent cycle broken at one span (counted). Linear apart from the sorts, and
 * iterative, so a chain of a million spans is fine.
 */
export const buildTree = (spans: ReadonlyArray<Span>): SpanTree => {
  const byId = new Map<string, Span>()
  for (const span of spans) if (!byId.has(span.spanId)) byId.set(span.spanId, span)
  const linkedParent = (span: Span): Span | undefined => (span.parentId === undefined ? undefined : byId.get(span.parentId))

  // Resolve each span's way up: 1 = on the current path, 2 = done. A path that meets itself is a
  // cycle: the span where it closes becomes a root.
  const state = new Map<Span, 1 | 2>()
  const broken = new Set<Span>()
  const path: Array<Span> = []
  for (const span of spans) {
    let current: Span | undefined = span
    while (current !== undefined && state.get(current) === undefined) {
      state.set(current, 1)
      path.push(current)
      current = linkedParent(current)
    }
    if (current !== undefined && state.get(current) === 1) broken.add(current)
    for (const done of path) state.set(done, 2)
    path.length = 0
  }

  const parents = new Map<Span, Span>()
  const children = new Map<Span, Array<Span>>()
  const roots: Array<Span> = []
  for (const span of spans) {
    const parent = broken.has(span) ? undefined : linkedParent(span)
    if (parent === undefined) {
      roots.push(span)
      continue
    }
    parents.set(span, parent)
    const siblings = children.get(parent)
    if (siblings === undefined) children.set(parent, [span])
    else siblings.push(span)
  }
  roots.sort(byStart)
  for (const list of children.values()) if (list.length > 1) list.sort(byStart)
  return {
    roots,
    childrenOf: (span) => children.get(span) ?? NO_SPANS,
    parentOf: (span) => parents.get(span),
    cyclesBroken: broken.size
  }
}
const NO_SPANS: ReadonlyArray<Span> = Object.freeze([])

/** Every span of a tree once, by start time (stable; ties in tree order). */
export const orderSpans = (tree: SpanTree): ReadonlyArray<Span> => {
  const preorder: Array<Span> = []
  walkTree(tree, (span) => preorder.push(span), () => undefined)
  return preorder.sort(byStartOnly)
}

/** Visits a tree depth-first, children by start time: `enter` before a span's children, `exit` after. */
export const walkTree = (tree: SpanTree, enter: (span: Span) => void, exit: (span: Span) => void): void => {
  const stack: Array<{ readonly span: Span; next: number }> = []
  for (const root of tree.roots) {
    enter(root)
    stack.push({ span: root, next: 0 })
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]
      if (frame === undefined) break
      const list = tree.childrenOf(frame.span)
      const child = list[frame.next]
      if (child === undefined) {
        stack.pop()
        exit(frame.span)
        continue
      }
      frame.next++
      enter(child)
      stack.push({ span: child, next: 0 })
    }
  }
}

export interface Step {
  readonly span: Span
  /** True when the span starts here, false when it ends. */
  readonly enter: boolean
  readonly at: bigint | undefined
  /** The step's position in the depth-first tour, which breaks ties in time. */
  readonly seq: number
}

/**
 * A trace's span starts and ends in time order, so overlapping siblings interleave (an agent run
 * inside another agent's tool call, parallel calls). Times are compared to the millisecond (SDKs
 * often record starts in whole milliseconds and ends in nanoseconds, so a span can seem to start
 * before the one it followed has ended); ties, and spans without times (which take their
 * parent's start), keep the depth-first tour's order: a parent starts before its children and
 * ends after them, and a span ends before the next sibling starts.
 */
export const timeline = (tree: SpanTree): ReadonlyArray<Step> => {
  const steps: Array<Step> = []
  const starts = new Map<Span, bigint | undefined>()
  let seq = 0
  walkTree(
    tree,
    (span) => {
      const parent = tree.parentOf(span)
      const at = span.startNanos ?? (parent === undefined ? undefined : starts.get(parent))
      starts.set(span, at)
      steps.push({ span, enter: true, at, seq: seq++ })
    },
    (span) => {
      const start = starts.get(span)
      starts.delete(span)
      const at = span.endNanos !== undefined && (start === undefined || span.endNanos >= start) ? span.endNanos : start
      steps.push({ span, enter: false, at, seq: seq++ })
    }
  )
  const ms = (at: bigint | undefined) => (at === undefined ? undefined : at / NANOS_PER_MS)
  return steps.sort((a, b) => compareTimes(ms(a.at), ms(b.at)) || a.seq - b.seq)
}

