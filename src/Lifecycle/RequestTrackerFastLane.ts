/**
 * The request tracker's synchronous lane (docs/architecture.md, "Services are Effects; fast lanes
 * are the edge's"): the edge counts each request in and out on node's events, without entering
 * the Effect runtime. Built by Lifecycle.ts, the one owner, over the same count as the
 * `RequestTracker` service; only Lifecycle.ts and the edge import this module
 * (test/architecture/fast-lanes.test.ts).
 */
import * as Context from "effect/Context"

export interface RequestTrackerFastLaneShape {
  /** One more request in flight. */
  readonly started: () => void
  /** One request fewer in flight (waking the drain when none is left). */
  readonly finished: () => void
}

export class RequestTrackerFastLane extends Context.Tag("RequestTrackerFastLane")<RequestTrackerFastLane, RequestTrackerFastLaneShape>() {}
