/**
 * What the guards are asked to allow: an operation, named by the surface that has it. Over HTTP the
 * edge derives it from the method and path (`httpOperation`); a surface in the caller's own process
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

const OPEN = new Set(["/healthz", "/livez", "/readyz", "/metrics", "/openapi.json"])

/** The dashboard's static shell and assets (DECISIONS §22): they hold no data; every datum comes through the API with the key. */
export const isDashboardPath = (path: string) => path === "/ui" || path.startsWith("/ui/")

/** The routes open to every caller: probes, metrics, the OpenAPI document, the static docs and the dashboard's shell. */
export const isAuthExempt = (path: string) =>
  OPEN.has(path) || path === "/docs" || path.startsWith("/docs/") || path === "/redoc" || path.startsWith("/redoc/") || isDashboardPath(path)

const INGEST_ROUTES: ReadonlySet<string> = new Set(["/v1/runs", "/v1/traces", "/v1/logs", "/v1/metrics"])

/**
 * The least role a request needs, by method and path: submitting runs and OTLP is `ingest`;
 * deleting, retrying, explaining a run again, resolving (PATCH), merging and detaching is `admin`; everything else is `read`.
 */
export const requiredRole = (method: string, path: string): Role => {
  if (method === "POST" && INGEST_ROUTES.has(path)) return "ingest"
  if (method === "DELETE" || method === "PATCH") return "admin"
  if (method === "POST" && (/^\/v1\/runs\/[^/]+\/(retry|explain)$/.test(path) || /^\/v1\/problems\/[^/]+\/(merge|detach)$/.test(path))) return "admin"
  return "read"
}

/** The OTLP endpoints: limited in spans per second per scope by their receiver, not by the request limiter (DECISIONS §18). */
const OTLP_ROUTES: ReadonlySet<string> = new Set(["/v1/traces", "/v1/logs", "/v1/metrics"])

/** The operation of an HTTP request (its label built only when a refusal names it: not per request). */
export const httpOperation = (method: string, path: string): Operation => ({
  get label() {
    return `${method} ${path.slice(0, 100)}`
  },
  role: requiredRole(method, path),
  authenticated: !isAuthExempt(path),
  counted: !OPEN.has(path) && !isDashboardPath(path) && !(method === "POST" && OTLP_ROUTES.has(path))
})

const local = (label: string, role: Role = "read"): Operation => ({ label, role, authenticated: true, counted: true })

/**
 * The operations of the surfaces that run in the caller's process, with the role each needs as its
 * route over HTTP does (`requiredRole`): submitting runs is `ingest`, reading them `read`, retrying,
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
