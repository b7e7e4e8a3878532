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
