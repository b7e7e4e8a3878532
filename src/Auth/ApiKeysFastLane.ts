/**
 * The API keys' synchronous lane (docs/architecture.md, "Services are Effects; fast lanes are the
 * edge's"): is any key configured, and whose key was presented, answered at once for the guards'
 * core (Auth/Guards.ts), which the edge runs on node's request event. Built by ApiKeys.ts, the one
 * owner, with the `ApiKeys` service beside it; only ApiKeys.ts, the guards and the edge import this
 * module (test/architecture/fast-lanes.test.ts).
 */
import * as Context from "effect/Context"

export interface ApiKeysFastLaneShape {
  /** True when any key is configured. */
  readonly configured: () => boolean
  /** The name of the key presented, or undefined; constant time in the presented value. */
  readonly verify: (presented: string) => string | undefined
}

export class ApiKeysFastLane extends Context.Tag("ApiKeysFastLane")<ApiKeysFastLane, ApiKeysFastLaneShape>() {}
