/**
 * Renders a validated trace for the model: one numbered line per element (`steps[3] type: … |
 * content: …`), generic over every input family. Over the mode's budget the trace is condensed
 * deterministically (scalars, the elements the signals point at, head and tail of each sequence,
 * then evenly spaced elements) and every gap is marked, never silently cut.
 */
import * as Predicate from "effect/Predicate"
import type { Signals } from "../Catalogue/Detection.js"
import { oneLine } from "../Text.js"

export interface Unit {
  readonly ref: string
  /** The field a sequence element belongs to (undefined for scalar fields). */
  readonly sequence: string | undefined
  readonly index: number
  /** The rendered line, computed only for units that are shown. */
  readonly text: () => string
  /** Characters the unit takes at most (rendering only ever shortens it). */
  readonly size: number
}

export interface RenderedView {
  readonly lines: string
  readonly elementsTotal: number
  readonly elementsSeen: number
  readonly condensed: boolean
}

const NONE: ReadonlySet<string> = new Set()

/** Fields that are never shown to the model (free-form, not analysed). */
const HIDDEN_FIELDS = new Set(["metadata"])
const HEAD_TAIL = 8

const renderValue = (value: unknown): string =>
  typeof value === "string"
    ? oneLine(value)
    : typeof value === "number" || typeof value === "boolean" || value === null
    ? String(value)
    : oneLine(JSON.stringify(value) ?? "")

const renderElement = (element: unknown): string => {
  if (!Predicate.isRecord(element)) return renderValue(element)
  // `key: value | key: value`, built in one pass (no entry pairs or part arrays per element).
  let line = ""
  for (const key in element) {
    if (!Object.hasOwn(element, key)) continue
    line += `${line === "" ? "" : " | "}${key}: ${renderValue(element[key])}`
  }
  return line
}

const capText = (text: string, cap: number) =>
  text.length <= cap ? text : `${text.slice(0, cap)} […${text.length - cap} more characters not shown]`

/** An upper bound of a rendered value's length (rendering only ever collapses whitespace). */
const valueSize = (value: unknown): number =>
  typeof value === "string"
    ? value.length
    : typeof value === "object" && value !== null
    ? (JSON.stringify(value) ?? "").length
    : String(value).length

/** An upper bound of an element's rendered length, without rendering its long strings. */
const sizeOf = (element: unknown): number => {
  if (!Predicate.isRecord(element)) return valueSize(element)
  let sum = 0
  for (const key in element) if (Object.hasOwn(element, key)) sum += key.length + 2 + valueSize(element[key]) + 3
  return sum
}

const unit = (ref: string, sequence: string | undefined, index: number, value: unknown, elementCap: number): Unit => {
  let rendered: string | undefined
  return {
    ref,
    sequence,
    index,
    size: Math.min(sizeOf(value), elementCap + 40),
    text: () => (rendered ??= capText(renderElement(value), elementCap))
  }
}

const DERIVED_NOTE = "(derived by code from the trace: an estimate, not stated by the trace or the operator) "

/**
 * Splits a canonical trace into numbered units, in field order; nothing is rendered yet. Fields
 * derived by code from a raw trace come last, each line named as derived.
 */
export const traceUnits = (
  trace: Readonly<Record<string, unknown>>,
  elementCap: number,
  derived: ReadonlySet<string> = NONE
): Array<Unit> => {
  const units: Array<Unit> = []
  const fields = Object.entries(trace)
  const ordered = derived.size === 0
    ? fields
    : [...fields.filter(([field]) => !derived.has(field)), ...fields.filter(([field]) => derived.has(field))]
  for (const [field, raw] of ordered) {
    if (HIDDEN_FIELDS.has(field) || raw === undefined) continue
    const value = derived.has(field) && !Array.isArray(raw) ? { derived: DERIVED_NOTE.trim(), value: raw } : raw
    if (Array.isArray(value)) {
      const note = derived.has(field) ? DERIVED_NOTE : ""
      value.forEach((element, index) =>
        units.push(unit(`${field}[${index}]`, field, index, note === "" ? element : { derived: note.trim(), value: element }, elementCap))
      )
    } else {
      units.push(unit(field, undefined, 0, value, elementCap))
    }
  }
  return units
}

const lineOf = (unit: Unit) => `${unit.ref} ${unit.text()}`
const costOf = (unit: Unit) => unit.ref.length + unit.size + 2

/** Upper bound of one gap marker ("[… N elements not shown: a to b …]"); each shown unit opens at most one gap. */
const GAP_MARKER_CHARS = 80

/** Chooses the units to show within `budget` characters (gap markers included); deterministic. */
export const selectUnits = (units: ReadonlyArray<Unit>, signals: Signals, budget: number): ReadonlySet<number> => {
  const chosen = new Set<number>()
  let used = GAP_MARKER_CHARS
  const take = (i: number) => {
    const unit = units[i]
    if (unit === undefined || chosen.has(i)) return
    const cost = costOf(unit) + GAP_MARKER_CHARS
    if (used + cost > budget) return
    chosen.add(i)
    used += cost
  }
  const byRef = new Map(units.map((unit, i) => [unit.ref, i]))
  units.forEach((unit, i) => {
    if (unit.sequence === undefined) take(i)
  })
  for (const highlight of signals.highlights) {
    const i = byRef.get(highlight.ref)
    if (i !== undefined) take(i)
  }
  const sequences = new Map<string, Array<number>>()
  units.forEach((unit, i) => {
    if (unit.sequence === undefined) return
    const indices = sequences.get(unit.sequence)
    if (indices === undefined) sequences.set(unit.sequence, [i])
    else indices.push(i)
  })
  for (const indices of sequences.values()) {
    indices.slice(0, HEAD_TAIL).forEach(take)
    indices.slice(-HEAD_TAIL).forEach(take)
  }
  // Fill what budget remains with evenly spaced elements, coarse to fine.
  for (let stride = 64; stride >= 1 && used < budget; stride = Math.floor(stride / 2)) {
    for (const indices of sequences.values()) {
      for (let k = 0; k < indices.length; k += stride) {
        const i = indices[k]
        if (i !== undefined) take(i)
      }
    }
  }
  return chosen
}

/** Renders the chosen units in trace order, marking each gap with what it hides. */
export const renderUnits = (units: ReadonlyArray<Unit>, chosen: ReadonlySet<number>): string => {
  const lines: Array<string> = []
  let gapStart = -1
  const closeGap = (end: number) => {
    if (gapStart < 0) return
    const first = units[gapStart]
    const last = units[end]
    if (first !== undefined && last !== undefined) {
      const count = end - gapStart + 1
      lines.push(`[… ${count} element${count === 1 ? "" : "s"} not shown: ${first.ref}${count > 1 ? ` to ${last.ref}` : ""} …]`)
    }
    gapStart = -1
  }
  units.forEach((unit, i) => {
    if (chosen.has(i)) {
      closeGap(i - 1)
      lines.push(lineOf(unit))
    } else if (gapStart < 0) {
      gapStart = i
    }
  })
  closeGap(units.length - 1)
  return lines.join("\n")
}

/** The trace as the model sees it within `budget` characters. */
export const renderTrace = (
  trace: Readonly<Record<string, unknown>>,
  signals: Signals,
  budget: number,
  elementCap: number,
  derived: ReadonlySet<string> = NONE
): RenderedView => {
  const units = traceUnits(trace, elementCap, derived)
  const total = units.reduce((sum, unit) => sum + costOf(unit), 0)
  const chosen = total <= budget ? new Set(units.map((_, i) => i)) : selectUnits(units, signals, budget)
  return {
    lines: renderUnits(units, chosen),
    elementsTotal: units.length,
    elementsSeen: chosen.size,
    condensed: chosen.size < units.length
  }
}

/**
 * Forensic map step: consecutive chunks of at most `budget` characters each (scalar fields go
 * in every chunk), at most `maxChunks`; when more would be needed, each chunk is condensed.
 */
export const chunkTrace = (
  trace: Readonly<Record<string, unknown>>,
  signals: Signals,
  budget: number,
  elementCap: number,
  maxChunks: number,
  derived: ReadonlySet<string> = NONE
): { readonly views: Array<RenderedView>; readonly elementsSeen: number; readonly elementsTotal: number } => {
  const units = traceUnits(trace, elementCap, derived)
  const scalars = units.filter((unit) => unit.sequence === undefined)
  const elements = units.filter((unit) => unit.sequence !== undefined)
  const scalarCost = scalars.reduce((sum, unit) => sum + costOf(unit), 0)
  const elementCost = elements.reduce((sum, unit) => sum + costOf(unit), 0)
  const room = Math.max(budget - scalarCost, Math.floor(budget / 2))
  const count = Math.max(1, Math.min(maxChunks, Math.ceil(elementCost / room)))
  const perChunk = Math.ceil(elements.length / count)
  const views: Array<RenderedView> = []
  let seen = scalars.length
  for (let c = 0; c < count; c++) {
    const slice = elements.slice(c * perChunk, (c + 1) * perChunk)
    const chunkUnits = [...scalars, ...slice]
    const cost = chunkUnits.reduce((sum, unit) => sum + costOf(unit), 0)
    const chosen = cost <= budget ? new Set(chunkUnits.map((_, i) => i)) : selectUnits(chunkUnits, signals, budget)
    // Scalars are repeated in every chunk; count only this chunk's sequence elements as seen.
    seen += Array.from(chosen).filter((i) => i >= scalars.length).length
    views.push({
      lines: renderUnits(chunkUnits, chosen),
      elementsTotal: units.length,
      elementsSeen: chosen.size,
      condensed: chosen.size < chunkUnits.length
    })
  }
  return { views, elementsSeen: Math.min(seen, units.length), elementsTotal: units.length }
}
