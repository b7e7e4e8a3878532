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
import type { KeyRole, Role } from "../Config/KeyRoles.js"

const RANK: Readonly<Record<Role, number>> = { ingest: 0, read: 1, admin: 2 }

/** The role of a verified key name (admin when the key is not listed). */
export const roleOf = (roles: ReadonlyMap<string, KeyRole>, keyName: string): Role => roles.get(keyName)?.role ?? "admin"

/** The scope of a verified key name (its own name when the key is not listed or names none). */
export const scopeOf = (roles: ReadonlyMap<string, KeyRole>, keyName: string): string => roles.get(keyName)?.scope ?? keyName

/** Whether a key's role is at least the one an operation needs. */
export const roleAllows = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed]
