/**
 * The cached replies' synchronous lane (docs/architecture.md, "Services are Effects; fast lanes are
 * the edge's"): the stored reply to a body seen before, at once, so the edge answers a cache hit
 * without entering the Effect runtime. Built by CachedReplies.ts, the one owner, over the same
 * known bodies the `CachedReplies` service remembers; only CachedReplies.ts and the edge import
 * this module (test/architecture/fast-lanes.test.ts).
 */
import * as Context from "effect/Context"
import type { Mode } from "../Catalogue/Resources.js"

export interface CachedReply {
  readonly bytes: Uint8Array
  readonly mode: Mode
}

export interface CachedRepliesFastLaneShape {
  /**
   * The reply for a body this cache scope sent before whose detection is stored (counted as a
   * cache hit), else undefined.
   */
  readonly lookup: (scope: string, slug: string, body: Uint8Array) => CachedReply | undefined
}

export class CachedRepliesFastLane extends Context.Tag("CachedRepliesFastLane")<CachedRepliesFastLane, CachedRepliesFastLaneShape>() {}
