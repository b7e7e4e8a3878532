/**
 * The generator's randomness (issue 48, docs/eval.md "Checks"): mulberry32, a small deterministic
 * PRNG, so a seed gives the same set on every machine and Node version. Each item draws from its
 * own stream (the seed mixed with the item's key), so adding an injector never reshuffles the
 * items of the others.
 */

export interface Rng {
  /** A float in [0, 1). */
  readonly next: () => number
  /** An integer in [min, max], both included. */
  readonly int: (min: number, max: number) => number
  /** One element of a non-empty list. */
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  /** True with probability p. */
  readonly chance: (p: number) => boolean
  /** A copy of the list, shuffled (Fisher-Yates). */
  readonly shuffle: <A>(items: ReadonlyArray<A>) => Array<A>
  /** `length` characters of the alphabet (ids that look like the ones providers write). */
  readonly token: (length: number, alphabet?: string) => string
}

/** FNV-1a of a text, to mix an item's key into the seed. */
const hash = (text: string): number => {
  let value = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index)
    value = Math.imul(value, 0x01000193) >>> 0
  }
  return value
}

const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/** The stream of a seed and a key. */
export const rngOf = (seed: number, key: string): Rng => {
  let state = (hash(key) ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  const pick = <A>(items: ReadonlyArray<A>): A => {
    const item = items[int(0, items.length - 1)]
    if (item === undefined) throw new Error("pick from an empty list")
    return item
  }
  const shuffle = <A>(items: ReadonlyArray<A>): Array<A> => {
    const out = [...items]
    for (let index = out.length - 1; index > 0; index--) {
      const other = int(0, index)
      const here = out[index]
      const there = out[other]
      if (here === undefined || there === undefined) continue
      out[index] = there
      out[other] = here
    }
    return out
  }
  const token = (length: number, alphabet = ALPHANUMERIC) => Array.from({ length }, () => alphabet[int(0, alphabet.length - 1)] ?? "x").join("")
  return { next, int, pick, chance: (p) => next() < p, shuffle, token }
}
