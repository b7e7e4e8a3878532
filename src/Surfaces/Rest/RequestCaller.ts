/**
 * The `Caller` of a REST request, from the key name the edge verified (`CurrentRequest`), built
 * once per request by the one `Scopes` (Auth/Caller.ts) and provided to the handler's effect.
 */
import { Effect } from "effect"
import { Caller, callerFrom } from "../../Auth/Caller.js"
import { Scopes } from "../../Auth/Scopes.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"

/** Built with a handler group: runs a handler's effect for the request's caller. */
export const RequestCaller = Effect.map(
  Scopes,
  (scopes) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Caller>> =>
    Effect.flatMap(CurrentRequest, (edge) => Effect.provideServiceEffect(effect, Caller, callerFrom(scopes, edge.keyName)))
)
