/**
 * The runs list's cursor (DECISIONS §17): the last run's submission time and id, base64url, and
 * never the scope. Apart from the store so the runs API can judge a cursor without loading it.
 */
/** The cursor of a page: the last run's submission time and id, base64url (no scope in it). */
export const cursorOf = (run: { readonly submittedAt: number; readonly id: string }): string => Buffer.from(JSON.stringify([run.submittedAt, run.id])).toString("base64url")
export const readCursor = (cursor: string | null): readonly [number, string] | undefined => {
  if (cursor === null) return undefined
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    return Array.isArray(parsed) && typeof parsed[0] === "number" && typeof parsed[1] === "string" ? [parsed[0], parsed[1]] : undefined
  } catch {
    return undefined
  }
}
