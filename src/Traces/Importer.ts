/**
 * One importer per supported format (DECISIONS §12): `detect` says cheaply whether a parsed body
 * is recognisably that format, `read` turns it into one or more normalized traces (several when
 * the body holds distinct trace ids or several records). Importers are pure, total and linear in
 * the input: malformed records are skipped and counted (`skipped`), cycles and missing ids never
 * hang or throw, and only trace content is read (dataset labels such as `mistake_step`,
 * `ground_truth`, `is_correct`, scores and annotations are never copied into events, task or
 * outcome).
 */
import type * as Either from "effect/Either"
import type { ImportedFormat } from "../Registry/Formats.js"
import type { NormalizedTrace } from "./Model.js"

export type { ImportedFormat }

export interface Importer {
  readonly format: ImportedFormat
  /**
   * True when the body is recognisably this format. Looks at the top level and at most a few
   * records (it runs on every raw body); must not throw on any JSON value.
   */
  readonly detect: (body: unknown) => boolean
  /**
   * The body's traces (at least one, each with at least one event), or a message saying what is
   * wrong when the body is this format but holds nothing usable (answered as 400).
   */
  readonly read: (body: unknown) => Either.Either<ReadonlyArray<NormalizedTrace>, string>
}

/** A field of a record when it is a string, else undefined (never throws on any value). */
export const stringField = (record: Readonly<Record<string, unknown>>, field: string): string | undefined => {
  const value = record[field]
  return typeof value === "string" ? value : undefined
}
