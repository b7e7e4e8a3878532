/**
 * References into a trace: `steps[4]`, `messages[12]`, `agents[0].role`, `task`, `outcome`.
 * The grammar is generic (field names and indices), so no pattern needs special handling.
 */
import * as Predicate from "effect/Predicate"
import { normalise } from "../Catalogue/SignalKit.js"

const SEGMENT = /^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$/

/** Resolves a ref against a trace; undefined when any segment does not exist. */
export const resolveRef = (trace: unknown, ref: string): unknown => {
  let current: unknown = trace
  for (const part of ref.trim().split(".")) {
    const match = SEGMENT.exec(part)
    if (match === null) return undefined
    const [, field, indices] = match
    if (field === undefined || !Predicate.isRecord(current) || !Object.prototype.hasOwnProperty.call(current, field)) return undefined
    current = current[field]
    for (const index of (indices ?? "").match(/\d+/g) ?? []) {
      if (!Array.isArray(current)) return undefined
      current = current[Number(index)]
      if (current === undefined) return undefined
    }
  }
  return current
}

/** All text inside a trace element, joined, for quote matching. */
export const elementText = (element: unknown): string => {
  if (typeof element === "string") return element
  if (typeof element === "number" || typeof element === "boolean") return String(element)
  if (Array.isArray(element)) return element.map(elementText).join(" ")
  if (typeof element === "object" && element !== null) return Object.values(element).map(elementText).join(" ")
  return ""
}

/** True when the ref exists and the quote occurs in it (whitespace- and case-normalised). */
export const quoteOccurs = (trace: unknown, ref: string, quote: string): boolean => {
  const element = resolveRef(trace, ref)
  if (element === undefined) return false
  const needle = normalise(quote)
  return needle.length > 0 && normalise(elementText(element)).includes(needle)
}
