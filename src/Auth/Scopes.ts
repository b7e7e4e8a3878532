/**
 * Whose data a request reads and writes (DECISIONS §15, issue 12). With SVC_API_REQUIRE_AUTH=true
 * everything a request stores and later reads back (baselines and their drift) belongs to the
 * verified API key's scope: its name, or the shared scope SVC_API_KEY_ROLES gives it (§16), and so do cache hits and single flight unless SVC_CACHE_SCOPE=global.
 * Without required auth there is one shared scope, as before. A rotated key keeps its name, so
 * its data. The scope is part of a store's key (a directory, a key prefix), never of the trace hash.
 *
 * Names are encoded by `encodeScopeName` (src/Text.ts) into one path segment / store-key component that no
 * other name encodes to, on case-sensitive and case-insensitive file systems alike: `.`, `/`,
 * `:`, `%` and upper-case letters are escaped, so `..` cannot address another scope.
 *
 * One set of rules behind two interfaces: `Scopes`, Effects only, for every surface (through
 * `callerFrom`, Auth/Caller.ts), and the edge's `ScopesFastLane` (ScopesFastLane.ts), the cache
 * scope of a cache hit answered without entering the Effect runtime.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../Config.js"
import { InternalError } from "../Errors.js"
import { encodeScopeName } from "../Text.js"
import type { KeyRole, Role } from "../Config/KeyRoles.js"
import { roleOf, scopeOf } from "./Roles.js"
import type { CallerShape, DataScope, RequestScopes } from "./Who.js"
import { ScopesFastLane } from "./ScopesFastLane.js"

export type { CallerShape, DataScope, RequestScopes }

export const SHARED: DataScope = { _tag: "Shared" }

/** A data scope's token: the cache prefix, and the scope's name in derived keys (redaction's). */
export const scopeTokenOf = (scope: DataScope) => (scope._tag === "Shared" ? "shared" : `key:${encodeScopeName(scope.name)}`)

/**
 * A request that requires a key got past the guards without one: they refuse it (401) first, so
 * a service that meets one fails closed with this.
 */
export const unverifiedCaller = () => new InternalError({ message: "no API key was verified for a request that requires one" })

export interface ScopesShape {
  /**
   * The scopes of a request by its verified key's name (null when no key was verified); undefined
   * when auth is required and no key was verified, which the guards have already refused (401).
   */
  readonly of: (keyName: string | null) => Effect.Effect<RequestScopes | undefined>
  /** The role of a verified key's name (SVC_API_KEY_ROLES); null when auth is not required or no key was verified. */
  readonly roleOf: (keyName: string | null) => Effect.Effect<Role | null>
  /** The caller of a unit of work by its verified key's name (the same scopes and role as above). */
  readonly callerOf: (keyName: string | null) => Effect.Effect<CallerShape>
}

export class Scopes extends Context.Tag("Scopes")<Scopes, ScopesShape>() {}

interface ScopeOptions {
  readonly authRequired: boolean
  readonly cacheScope: "key" | "global"
  /** SVC_API_KEY_ROLES: keys listed with `@scope` share that scope; others have their own name's. */
  readonly roles?: ReadonlyMap<string, KeyRole>
}

/** The one set of rules, synchronous: the service and the edge's lane are both built on it. */
const scopeRules = (options: ScopeOptions) => {
  const shared: RequestScopes = { data: SHARED, cache: scopeTokenOf(SHARED) }
  const of = (keyName: string | null): RequestScopes | undefined => {
    if (!options.authRequired) return shared
    if (keyName === null) return undefined
    const data: DataScope = { _tag: "Key", name: options.roles === undefined ? keyName : scopeOf(options.roles, keyName) }
    return { data, cache: options.cacheScope === "global" ? shared.cache : scopeTokenOf(data) }
  }
  const role = (keyName: string | null): Role | null => (!options.authRequired || keyName === null ? null : roleOf(options.roles ?? new Map(), keyName))
  // A caller is the same for a key name as long as the configuration is (fixed at start), so each
  // is made once: every request and claimed run asks for its caller. The names are verified keys'
  // (and stored runs'), a few; the bound only keeps a long-lived process from holding stale ones.
  const callers = new Map<string | null, CallerShape>()
  const callerOf = (keyName: string | null): CallerShape => {
    let caller = callers.get(keyName)
    if (caller === undefined) {
      const scoped = of(keyName)
      caller = { keyName, scope: scoped === undefined ? undefined : scopeTokenOf(scoped.data), scopes: scoped, role: role(keyName) }
      if (callers.size >= 1024) callers.clear()
      callers.set(keyName, caller)
    }
    return caller
  }
  return { of, roleOf: role, callerOf }
}

const serviceOf = (rules: ReturnType<typeof scopeRules>): ScopesShape => ({
  of: (keyName) => Effect.sync(() => rules.of(keyName)),
  roleOf: (keyName) => Effect.sync(() => rules.roleOf(keyName)),
  callerOf: (keyName) => Effect.sync(() => rules.callerOf(keyName))
})

/** The `Scopes` service of the options given (tests, and the layer below). */
export const makeScopes = (options: ScopeOptions): ScopesShape => serviceOf(scopeRules(options))

/** `Scopes` and the edge's `ScopesFastLane`, one set of rules behind both. */
export const ScopesLive = Layer.effectContext(
  Effect.map(AppConfig, (config) => {
    const rules = scopeRules({ authRequired: config.auth.required, cacheScope: config.cache.scope, roles: config.auth.roles })
    // the cache scope is the kept caller's: a cache hit does not encode the key's name again
    return Context.make(ScopesFastLane, { cacheScopeOf: (keyName) => rules.callerOf(keyName).scopes?.cache, callerOf: rules.callerOf }).pipe(Context.add(Scopes, serviceOf(rules)))
  })
)
