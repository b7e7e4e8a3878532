/**
 * A detection of the common shape (src/Catalogue/Detection.ts `Detection`) for tests of what holds
 * detections without reading them (the cache, the Redis store): every field present, `summary`
 * telling one apart from another.
 */
import type { Detection } from "../../src/Catalogue/Detection.js"

export const sampleDetection = (summary: string, overrides: Partial<Detection> = {}): Detection => ({
  severity: "none",
  confidence: 0.5,
  profile: "indeterminate",
  summary,
  headline: null,
  findings: [],
  interventions: [],
  handoff: { upstream: [], downstream: [], rationale: "" },
  signals: { values: {}, highlights: [] },
  evidence_check: { cited: 0, verified: 0, dropped: 0 },
  coverage: { elements_total: 0, elements_seen: 0, condensed: false, chunks: 1 },
  usage: { llm_calls: 0, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, elapsed_ms: 0 },
  drift: null,
  generated_at: "2026-11-24T00:00:00.000Z",
  ...overrides
})
