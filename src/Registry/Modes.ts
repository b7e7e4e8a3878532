/**
 * The analysis modes (DECISIONS §3), one entry each, from the lightest to the deepest.
 * Everything that names the modes derives from this list: the `Mode` schema
 * (src/Catalogue/Resources.ts; so OpenAPI, the typed client, the MCP tools' input schemas and
 * every PatternRecord's `modes`), the invalid_mode message, the prompts a pattern folder must
 * hold, MCP's prompt completions, `svc --mode` with its help and completions, and the generated
 * sections of docs/cli.md (src/Registry/Docs.ts). Adding a mode: an entry here, its prompt in
 * every pattern folder (`prompts/<mode>.md`), and its plan where the compiler asks for one
 * (the engine's passes and budgets, diagnose's estimate).
 *
 * Contract-safe: names and words only (the typed client bundles it).
 */
import type { NonEmpty } from "./Entries.js"

export interface ModeEntry {
  readonly name: string
  /** What it costs, in words (descriptions, help). */
  readonly calls: string
}

export const MODES = [
  { name: "quick", calls: "1 model call" },
  { name: "standard", calls: "2 model calls" },
  { name: "forensic", calls: "up to 4 model calls" }
] as const satisfies NonEmpty<ModeEntry>

export type ModeName = (typeof MODES)[number]["name"]

/** The most lenses one diagnose runs (`patterns`, `max_patterns`), and how many triage picks when a request names none. */
export const MAX_PATTERNS = 12
export const DEFAULT_MAX_PATTERNS = 5

/** The mode of a request that names none. */
export const DEFAULT_MODE: ModeName = "standard"
