/** Reading fixtures' JSON without casts: a record, a list, a string, or nothing. */
import { Predicate } from "effect"

export type Rec = Readonly<Record<string, unknown>>

export const rec = (value: unknown): Rec => (Predicate.isRecord(value) ? value : {})
export const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
export const records = (value: unknown): ReadonlyArray<Rec> => list(value).filter(Predicate.isRecord)

/** A deep copy (fixtures are JSON). */
export const copy = <A>(value: A): A => structuredClone(value)
