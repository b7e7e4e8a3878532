/**
 * The types of "whose": a data scope, a request's scopes and a caller. The rules that make them are
 * Scopes.ts's; the types are here so the scopes' lane (ScopesFastLane.ts), the `Caller` service
 * (Caller.ts) and Scopes.ts can all name them without importing one another.
 */
import type { Role } from "../Config/KeyRoles.js"

/** The owner of stored data: everyone (auth not required) or one key name. */
export type DataScope = { readonly _tag: "Shared" } | { readonly _tag: "Key"; readonly name: string }

/** The scopes of one request. */
export interface RequestScopes {
  /** Baselines and drift. */
  readonly data: DataScope
  /** The prefix of cache and single-flight keys: "shared" or "key:<encoded name>". */
  readonly cache: string
}

/**
 * Who a unit of work runs for (the `Caller` service, Auth/Caller.ts): the verified key's name, its
 * scopes and its role, by the rules of Scopes.ts.
 */
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
