/**
 * What the guards are asked to allow: an operation, named by the surface that has it. Over HTTP the
 * edge reads it from the route the request matched (`httpOperation` in Edge/Routes.ts: each
 * endpoint's `EndpointAccess` annotation in the contract); a surface in the caller's own process
 * (`svc mcp` over stdio, the `svc` commands in-process) names its own (`LOCAL_OPERATIONS`), with no
 * route or header made up for it. The operation says which role it needs (DECISIONS §16) and
 * whether a key and the rate limit apply at all (the probes, metrics and docs are open, §5).
 */
import { Forbidden } from "../Errors.js"
import type { Role } from "../Config/KeyRoles.js"
import { roleAllows } from "./Roles.js"

export interface Operation {
  /** What is asked, for the 403's message: `POST /v1/analyze/lewin`, `svc analyze`. */
  readonly label: string
  /** The least role of a key that may do it. */
  readonly role: Role
  /** False for the open routes: no key is needed or even looked at. */
  readonly authenticated: boolean
  /** False for the routes the rate limit does not count (probes, metrics, the document). */
  readonly counted: boolean
}

const local = (label: string, role: Role = "read"): Operation => ({ label, role, authenticated: true, counted: true })

/**
 * The operations of the surfaces that run in the caller's process, with the role each needs as its
 * route over HTTP does (its endpoint's `EndpointAccess`, test/guards/roles.test.ts compares them): submitting runs is `ingest`, reading them `read`, retrying,
 * explaining again (which spends model budget) and importing (which writes runs with their reports) `admin`; reading problems `read`, changing
 * them (status, merge, detach) `admin`.
 */
export const LOCAL_OPERATIONS = {
  mcp: local("svc mcp"),
  analyze: local("svc analyze"),
  diagnose: local("svc diagnose"),
  check: local("svc check"),
  normalize: local("svc normalize"),
  "runs submit": local("svc runs submit", "ingest"),
  "runs list": local("svc runs list"),
  "runs show": local("svc runs show"),
  "runs wait": local("svc runs wait"),
  "runs export": local("svc runs export"),
  "runs retry": local("svc runs retry", "admin"),
  "runs explain": local("svc runs explain", "admin"),
  "problems regroup": local("svc problems regroup", "admin"),
  "runs import": local("svc runs import", "admin"),
  "problems list": local("svc problems list"),
  "problems show": local("svc problems show"),
  "problems compare": local("svc problems compare"),
  "problems update": local("svc problems update", "admin"),
  "problems merge": local("svc problems merge", "admin"),
  "problems detach": local("svc problems detach", "admin"),
  digest: local("svc digest")
} as const satisfies Readonly<Record<string, Operation>>

/** The 403 of a key whose role is below what the operation needs, else null. */
export const roleRefusal = (role: Role, operation: Operation): Forbidden | null =>
  roleAllows(role, operation.role)
    ? null
    : new Forbidden({ message: `this API key's role (${role}) may not ${operation.label}; it needs ${operation.role} (SVC_API_KEY_ROLES)` })
