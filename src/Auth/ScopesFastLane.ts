/**
 * The scopes' synchronous lane (docs/architecture.md, "Services are Effects; fast lanes are the
 * edge's"): the cache scope of a verified key's name, answered at once so the edge can look a
 * body up among the replies it may answer from the cache (Cache/CachedReplies.ts) without
 * entering the Effect runtime. Built by Scopes.ts, the one owner of "whose data", from the same
 * rules as the `Scopes` service; only Scopes.ts and the edge import this module
 * (test/architecture/fast-lanes.test.ts).
 */
import * as Context from "effect/Context"
import type { CallerShape } from "./Who.js"

export interface ScopesFastLaneShape {
  /**
   * The prefix of cache keys for a verified key's name (null when none was verified): "shared" or
   * "key:<encoded name>"; undefined when auth is required and no key was verified.
   */
  readonly cacheScopeOf: (keyName: string | null) => string | undefined
  /** The caller of a request by its verified key's name (null when none was verified), for `CurrentRequest`. */
  readonly callerOf: (keyName: string | null) => CallerShape
}

export class ScopesFastLane extends Context.Tag("ScopesFastLane")<ScopesFastLane, ScopesFastLaneShape>() {}
