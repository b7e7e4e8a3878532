/**
 * The cache key (DECISIONS §6): SHA-256 of the canonical JSON (keys sorted, no spaces, RFC 8785
 * style) of {pattern, mode (effective), model (requested or null), trace (validated)}. Flat and
 * envelope bodies, and any key order inside the trace, give the same key. For a raw trace in a
 * supported format (DECISIONS §12) the key also covers `intake`: the format, the selected trace
 * normalized with its source pointers, and the hints; every key covers `CACHE_KEY_VERSION`.
 */
import { createHash } from "node:crypto"

/** Canonical JSON: object keys sorted by code unit, no whitespace, ES number formatting. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null"
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`
  if (typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined && typeof item !== "function")
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`
  }
  return "null"
}

/**
 * The version of what a key covers, hashed with it: bumped whenever the normalized trace model
 * changes (2: the structure of DECISIONS §23, call ids, statuses, finish reasons, tokens,
 * durations, declared tools and content-free model calls), so no answer cached from a trace read
 * the old way is served for one read the new way.
 */
export const CACHE_KEY_VERSION = 2

export const cacheKey = (parts: {
  readonly pattern: string
  readonly mode: string
  readonly model: string | null
  readonly trace: unknown
  readonly intake?: unknown
}): string => createHash("sha256").update(canonicalJson({ ...parts, version: CACHE_KEY_VERSION })).digest("hex")
