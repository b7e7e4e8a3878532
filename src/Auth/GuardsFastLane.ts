/**
 * The guards' synchronous lane (docs/architecture.md, "Services are Effects; fast lanes are the
 * edge's"): the same check as `Guards.check` (Auth/Guards.ts, its one owner, builds both from one
 * core), answered at once on node's request event, or as a promise when the rate limit is kept in
 * Redis (DECISIONS §15), so the edge refuses or passes a request without entering the Effect
 * runtime. Only the edge (src/Edge/) and Guards.ts import this module
 * (test/architecture/fast-lanes.test.ts); every surface uses `Guards`.
 */
import * as Context from "effect/Context"
import type { AuthMisconfigured, Forbidden, RateLimited, Unauthorized } from "../Errors.js"
import type { Operation } from "./Operations.js"

export type GuardFailure = Unauthorized | AuthMisconfigured | Forbidden | RateLimited

/**
 * What the guards look at, whatever the surface: the key presented (none: undefined), the client
 * address (a socket's peer, or `local` in the caller's own process), the X-Forwarded-For a proxy
 * added, and the operation asked for (Auth/Operations.ts). No surface fabricates a header or a path.
 */
export interface GuardRequest {
  readonly key: string | undefined
  readonly address: string | undefined
  readonly forwardedFor: string | undefined
  readonly operation: Operation
}

/** A request the guards passed. */
export interface GuardPass {
  readonly _tag: "Pass"
  /** X-RateLimit-* for the response (empty on exempt paths or without a limit). */
  readonly headers: Readonly<Record<string, string>>
  /** The verified key's name, null when none was presented, verified or looked at. */
  readonly keyName: string | null
  /** The rate-limit bucket the request was counted in; null when no limit applied. */
  readonly bucket: string | null
}

export type GuardOutcome = GuardPass | { readonly _tag: "Fail"; readonly error: GuardFailure }

export interface GuardsFastLaneShape {
  /** `Guards.check` without the runtime: the outcome at once, or a promise of it with a Redis limit. */
  readonly check: (request: GuardRequest) => GuardOutcome | Promise<GuardOutcome>
}

export class GuardsFastLane extends Context.Tag("GuardsFastLane")<GuardsFastLane, GuardsFastLaneShape>() {}
