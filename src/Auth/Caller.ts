/**
 * Who a unit of work runs for: the verified key's name, its data scope and its role, built once
 * per request (REST, an MCP tool call, a CLI command, an OTLP request) or per claimed run (the
 * workers, from the key name the run was stored with) by `callerFrom`, and provided as the `Caller`
 * service. Services read it (`yield* Caller`) instead of taking a key name.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { InternalError } from "../Errors.js"
import { type ScopesShape, unverifiedCaller } from "./Scopes.js"
import type { CallerShape } from "./Who.js"

export type { CallerShape }

export class Caller extends Context.Tag("Caller")<Caller, CallerShape>() {}

/**
 * The caller of a unit of work by its verified key's name, from the one `Scopes` (the surfaces hold
 * it from their layer, so a request does no service lookup for it; the edge has it on
 * `CurrentRequest`, made by the same rules through the scopes' lane).
 */
export const callerFrom = (scopes: ScopesShape, keyName: string | null): Effect.Effect<CallerShape> => scopes.callerOf(keyName)

/** The caller's data scope token, or the one failure of a caller no key was verified for. */
export const callerScope: Effect.Effect<string, InternalError, Caller> = Effect.flatMap(
  Caller,
  (caller) => caller.scope === undefined ? Effect.fail(unverifiedCaller()) : Effect.succeed(caller.scope)
)
