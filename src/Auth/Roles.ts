/**
 * Roles of API keys and the scopes they share (DECISIONS §16). `SVC_API_KEY_ROLES` =
 * `name=role[@scope],...`; a key not listed is `admin` in a scope of its own name (§15):
 * - `ingest` may only submit (`POST /v1/runs`, the OTLP receiver): the key agents carry in their
 *   exporter settings cannot read or delete a team's history;
 * - `read` may also analyze, diagnose, normalize and read runs, reports and problems;
 * - `admin` may also delete, retry, resolve and merge.
 * `@scope` puts keys in one named scope, so the agents' ingest key and the team's read and admin
 * keys see the same data (`agents=ingest@billing,alice=admin@billing`).
 */
export const ROLES = ["ingest", "read", "admin"] as const
export type Role = (typeof ROLES)[number]

const RANK: Readonly<Record<Role, number>> = { ingest: 0, read: 1, admin: 2 }

export interface KeyRole {
  readonly role: Role
  /** The scope the key's data belongs to: the named one, else the key's own name. */
  readonly scope: string
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/

/** `name=role[@scope]` entries, comma-separated: the map by key name, or what is wrong. */
export const parseKeyRoles = (raw: string): ReadonlyMap<string, KeyRole> | string => {
  const roles = new Map<string, KeyRole>()
  const entries = raw.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
  for (const [index, entry] of entries.entries()) {
    const match = /^([^=@]+)=([a-z]+)(?:@(.+))?$/.exec(entry)
    const where = `entry ${index + 1}`
    if (match === null) return `${where} must be <key_name>=<role>[@<scope>]`
    const [, name = "", role = "", scope] = match
    if (!NAME.test(name)) return `${where}: key names are 1-64 characters of [A-Za-z0-9_.-]`
    const known = ROLES.find((candidate) => candidate === role)
    if (known === undefined) return `${where}: the role must be one of ${ROLES.join(", ")}`
    if (scope !== undefined && !NAME.test(scope)) return `${where}: scope names are 1-64 characters of [A-Za-z0-9_.-]`
    if (roles.has(name)) return `${where}: ${name} is listed twice`
    roles.set(name, { role: known, scope: scope ?? name })
  }
  return roles
}

/** The role of a verified key name (admin when the key is not listed). */
export const roleOf = (roles: ReadonlyMap<string, KeyRole>, keyName: string): Role => roles.get(keyName)?.role ?? "admin"

/** The scope of a verified key name (its own name when the key is not listed or names none). */
export const scopeOf = (roles: ReadonlyMap<string, KeyRole>, keyName: string): string => roles.get(keyName)?.scope ?? keyName

/** Whether a key's role is at least the one an operation needs. */
export const roleAllows = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed]
