/**
 * The severity scale (DECISIONS §3), least severe first: a detection's, a finding's and a
 * report's severity. Everything that names or compares severities derives from this list: the
 * `Severity` schema (src/Catalogue/Detection.ts; so OpenAPI, the typed client and the model's
 * structured output), their ranks (merging, the decisive step, the renderings' order),
 * `svc --fail-on` (every step but the first) with its help and completions, and the generated
 * section of docs/cli.md (src/Registry/Docs.ts). Adding a step: an entry here, and its SARIF level
 * and OTLP severity number where the compiler asks for them (src/Diagnose/Render/).
 *
 * Contract-safe: names and words only (the typed client bundles it).
 */
import type { NonEmpty } from "./Entries.js"

export interface SeverityEntry {
  readonly name: string
}

export const SEVERITIES = [
  { name: "none" },
  { name: "low" },
  { name: "medium" },
  { name: "high" },
  { name: "critical" }
] as const satisfies NonEmpty<SeverityEntry>

export type SeverityName = (typeof SEVERITIES)[number]["name"]
