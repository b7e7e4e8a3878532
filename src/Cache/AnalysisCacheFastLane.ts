/**
 * The analysis cache's synchronous lane (docs/architecture.md, "Services are Effects; fast lanes are
 * the edge's"): a stored entry's prepared response bytes, counted as a hit, at once, so the edge
 * answers a cache hit (Cache/CachedReplies.ts) without entering the Effect runtime. Built by
 * AnalysisCache.ts, the one owner, over the same entries as the `AnalysisCache` service; only
 * AnalysisCache.ts, CachedReplies.ts and the edge import this module
 * (test/architecture/fast-lanes.test.ts).
 */
import * as Context from "effect/Context"
import type { AnalysisResult } from "../Catalogue/Detection.js"

export interface AnalysisCacheFastLaneShape {
  /**
   * The prepared response bytes of a stored entry now, by the cache's Clock (rendered once per
   * entry), counting a hit, or undefined when the key is not stored (nothing is computed).
   */
  readonly hitBytes: (key: string, render: (result: AnalysisResult) => Uint8Array) => Uint8Array | undefined
}

export class AnalysisCacheFastLane extends Context.Tag("AnalysisCacheFastLane")<AnalysisCacheFastLane, AnalysisCacheFastLaneShape>() {}
