/**
 * Who a unit of work runs for: the verified key's name, its data scope and its role, built once
 * per request (REST, an MCP tool call, a CLI command, an OTLP request) or per claimed run (the
 * workers, from the key name the run was stored with) by `callerFrom`, and provided as the `Caller`
 * service. Services read it (`yield* Caller`) instead of taking a key name.
 */
import { Context, Effect } from "effect"
import type { Role } from "../Config/KeyRoles.js"
import type { InternalError } from "../Errors.js"
import { type RequestScopes, scopeTokenOf, type ScopesShape, unverifiedCaller } from "./Scopes.js"

export interface CallerShape {
  /** The verified key's name, null when no key was verified (or auth is not required and none was sent). */
  readonly keyName: string | null
  /**
   * The data scope token (the store's `scope`, redaction's derived keys): "shared" or
   * "key:<encoded name>"; undefined when auth is required and no key was verified, which the
   * guards have already refused (a service meeting it fails closed, `callerScope`).
   */
  readonly scope: string | undefined
  /** The request's scopes (the data scope, the cache prefix), undefined as `scope` is. */
  readonly scopes: RequestScopes | undefined
  /** The key's role (SVC_API_KEY_ROLES), null when auth is not required or no key was verified. */
  readonly role: Role | null
}

export class Caller extends Context.Tag("Caller")<Caller, CallerShape>() {}

/**
 * The caller of a unit of work by its verified key's name, from the one `Scopes` (the surfaces hold
 * it from their layer, so a request does no service lookup for it).
 */
export const callerFrom = (scopes: ScopesShape, keyName: string | null): Effect.Effect<CallerShape> =>
  Effect.zipWith(scopes.of(keyName), scopes.roleOf(keyName), (scoped, role) => ({
    keyName,
    scope: scoped === undefined ? undefined : scopeTokenOf(scoped.data),
    scopes: scoped,
    role
  }))

/** The caller's data scope token, or the one failure of a caller no key was verified for. */
export const callerScope: Effect.Effect<string, InternalError, Caller> = Effect.flatMap(
  Caller,
  (caller) => caller.scope === undefined ? Effect.fail(unverifiedCaller()) : Effect.succeed(caller.scope)
)
