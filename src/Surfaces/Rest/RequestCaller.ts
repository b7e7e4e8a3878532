/**
 * The `Caller` of a REST request: the one the edge made from the key name it verified
 * (`CurrentRequest`, by the scopes' rules), provided to the handler's effect.
 */
import * as Effect from "effect/Effect"
import { Caller } from "../../Auth/Caller.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"

/** Runs a handler's effect for the request's caller. */
export const forCaller = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Caller>> =>
  Effect.flatMap(CurrentRequest, (edge) => Effect.provideService(effect, Caller, edge.caller))
