/**
 * What every registry (src/Registry/) is: one ordered list of entries, each with a `name`. The
 * lists hold data only; the schemas, messages, CLI choices and documents that name the entries
 * are computed from them where they are used, with `namesOf`, so a list is the one place to edit.
 */

/** A list with at least one element, as `Schema.Literal` and `Options.choice` want. */
export type NonEmpty<A> = readonly [A, ...ReadonlyArray<A>]

/** The entries' names, in the registry's order. */
export const namesOf = <N extends string>(entries: NonEmpty<{ readonly name: N }>): NonEmpty<N> => {
  const [first, ...rest] = entries
  return [first.name, ...rest.map((entry) => entry.name)]
}

/** `a, b, c`, in the registry's order. */
export const listOf = (names: ReadonlyArray<string>): string => names.join(", ")

/** `a, b or c`, in the registry's order. */
export const alternatives = (names: ReadonlyArray<string>): string =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1) ?? ""}`
