/**
 * The grammar of SVC_API_KEY_ROLES (DECISIONS §16): `name=role[@scope]`, comma-separated, and the
 * roles it names. What a role may do is Auth's (src/Auth/Roles.ts, src/Auth/Operations.ts).
 */
export const ROLES = ["ingest", "read", "admin"] as const
export type Role = (typeof ROLES)[number]

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

/**
 * A role given to a key name no key has, named: a typo (`alcie=read`) would otherwise leave the
 * real key unlisted, so `admin` of its own scope (DECISIONS §16), and nothing would say so.
 * `sources` names where the keys come from, for the message. Undefined when every name has a key.
 */
export const unknownRoleNames = (roles: ReadonlyMap<string, KeyRole>, keyNames: ReadonlySet<string>, sources: string): string | undefined => {
  const unknown = Array.from(roles.keys()).filter((name) => !keyNames.has(name))
  if (unknown.length === 0) return undefined
  const named = unknown.slice(0, 5).map((name) => JSON.stringify(name)).join(", ") + (unknown.length > 5 ? ` and ${unknown.length - 5} more` : "")
  return `SVC_API_KEY_ROLES gives a role to ${named}, which ${unknown.length === 1 ? "is no key's name" : "are no keys' names"} in ${sources}: fix the name, or add the key (an unlisted key is admin of its own scope)`
}
