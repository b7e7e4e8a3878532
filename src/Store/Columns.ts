import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { Predicate } from "effect"

/** Reading a row's columns as both drivers return them (libsql: numbers; PostgreSQL: BIGINT as digits). */

export const text = (row: Record<string, unknown>, key: string): string | null => {
  const value = row[key]
  return typeof value === "string" ? value : null
}

/** An integer column: a number, a bigint, or (PostgreSQL's BIGINT and SUM as the driver reads them) digits. */
export const integer = (row: Record<string, unknown>, key: string): number | null => {
  const value = row[key]
  return typeof value === "number"
    ? value
    : typeof value === "bigint"
    ? Number(value)
    : typeof value === "string" && /^-?\d+$/.test(value)
    ? Number(value)
    : null
}

/** A `labels` column: a JSON object of strings (anything else read as none). */
export const labelsOf = (raw: string | null): Readonly<Record<string, string>> => {
  if (raw === null) return {}
  try {
    const parsed: unknown = JSON.parse(raw)
    if (!Predicate.isRecord(parsed)) return {}
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
  } catch {
    return {}
  }
}

/** A run whose `labels` column has `key` = `value`, in the client's dialect (runs' and compare's filter). */
export const labelEquals = (sql: SqlClient.SqlClient, key: string, value: string): Statement.Fragment =>
  sql.onDialectOrElse({
    pg: () => sql`(labels::jsonb ->> ${key}) = ${value}`,
    orElse: () => sql`json_extract(labels, ${`$."${key}"`}) = ${value}`
  })
