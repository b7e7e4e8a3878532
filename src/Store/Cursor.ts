/**
 * The lists' cursor (DECISIONS §17, §19): the last item's time and id (a run's submission, a
 * problem's last sighting, a delivery's creation), base64url, and never the scope. Apart from the
 * store so the APIs can judge a cursor without loading it.
 */
/** The cursor after an item listed by (time, id), newest first. */
export const cursorOf = (time: number, id: string): string => Buffer.from(JSON.stringify([time, id])).toString("base64url")

/**
 * A cursor this service gave, read back; undefined for any other. Its time is a whole number of
 * milliseconds (`1e999` parses to Infinity, which no BIGINT column takes) and its id holds no U+0000
 * (which no text column takes): either reaching the store would answer 503, not 400.
 */
export const readCursor = (cursor: string | null): readonly [number, string] | undefined => {
  if (cursor === null) return undefined
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    return Array.isArray(parsed) && parsed.length === 2 && Number.isSafeInteger(parsed[0]) && typeof parsed[0] === "number" &&
        typeof parsed[1] === "string" && !parsed[1].includes("\u0000")
      ? [parsed[0], parsed[1]]
      : undefined
  } catch {
    return undefined
  }
}

/**
 * A page of `limit` from a query that read `limit + 1` items, newest first: the items shown, and
 * the next page's cursor when there was one more.
 */
export const pageOf = <A>(items: ReadonlyArray<A>, limit: number, keyOf: (item: A) => readonly [number, string]) => {
  const shown = items.slice(0, limit)
  const last = shown.at(-1)
  return { shown, nextCursor: items.length > limit && last !== undefined ? cursorOf(...keyOf(last)) : null }
}
