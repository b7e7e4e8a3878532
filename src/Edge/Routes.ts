/**
 * The route table, derived from the HttpApi contract: each endpoint's method, path and access (the
 * `EndpointAccess` annotation it carries, src/Contract/Access.ts). The edge reads from it, once per
 * request, the route's template (404 from 405, bounded metric labels, the span's `http.route`)
 * and the operation the guards are asked to allow. Two routes live outside the contract and are
 * named here: the MCP endpoint and the dashboard's shell.
 */
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import type * as AST from "effect/SchemaAST"
import { Api } from "../Api.js"
import type { Operation } from "../Auth/Operations.js"
import { Access, EndpointAccess } from "../Contract/Access.js"
import { JSON_LINES_MEDIA, TraceJsonAnnotationId, ZIP_MEDIA } from "../Contract/TraceBodies.js"
import { DASHBOARD_ASSETS } from "../Ui/Shell.js"

/** Every analyze path starts so: `/v1/analyze/<pattern>`. */
export const ANALYZE_PREFIX = "/v1/analyze/"
/** The diagnose path. */
export const DIAGNOSE_PATH = "/v1/diagnose"
/** The MCP endpoint (Streamable HTTP, DECISIONS §14): served by the MCP transport, not the HttpApi. */
export const MCP_PATH = "/mcp"
export const MCP_METHODS: ReadonlyArray<string> = ["DELETE", "POST"]

/** The dashboard's static shell and assets (DECISIONS §22): they hold no data; every datum comes through the API with the key. */
export const isDashboardPath = (path: string) => path === "/ui" || path.startsWith("/ui/")

/**
 * The bodies a route's payload takes, by its members' media types (Contract/TraceBodies.ts): JSON
 * as an object or, for a trace, an object or an array; JSON Lines; a zip. The edge's replay reads
 * a body by these and refuses any other media type with the 415 (Replay.ts).
 */
export interface BodyForms {
  readonly json: "object" | "trace"
  readonly jsonLines: boolean
  readonly zip: boolean
}

/** A body as a JSON object, and nothing else: a route without a payload, or a JSON payload's. */
export const JSON_OBJECT: BodyForms = { json: "object", jsonLines: false, zip: false }

/** A route a request matched: its template (`unmatched` for none, keeping labels bounded), its access and the bodies it takes. */
export interface Route {
  readonly template: string
  readonly access: Access
  readonly bodies: BodyForms
}

interface RouteInfo extends Route {
  readonly method: string
  readonly pattern: RegExp
}

const toRegExp = (path: string): RegExp =>
  new RegExp(`^${path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`)

/** An endpoint's access; an endpoint without one is a mistake in the contract, refused as the service loads. */
const accessOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): Access =>
  Option.getOrThrowWith(
    Context.getOption(endpoint.annotations, EndpointAccess),
    () => new Error(`the endpoint ${endpoint.name} (${endpoint.method} ${endpoint.path}) declares no EndpointAccess (src/Contract/Access.ts)`)
  )

/** The bodies an endpoint's payload takes, from its members' encodings. */
const bodiesOf = (endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): BodyForms => {
  if (Option.isNone(endpoint.payloadSchema)) return JSON_OBJECT
  const ast = endpoint.payloadSchema.value.ast
  const members: ReadonlyArray<AST.AST> = ast._tag === "Union" ? ast.types : [ast]
  let json: BodyForms["json"] = "object"
  let jsonLines = false
  let zip = false
  for (const member of members) {
    const encoding = HttpApiSchema.getEncoding(member)
    if (encoding.kind === "Json" && member.annotations[TraceJsonAnnotationId] === true) json = "trace"
    if (encoding.kind === "Uint8Array" && encoding.contentType === JSON_LINES_MEDIA) jsonLines = true
    if (encoding.kind === "Uint8Array" && encoding.contentType === ZIP_MEDIA) zip = true
  }
  return json === "object" && !jsonLines && !zip ? JSON_OBJECT : { json, jsonLines, zip }
}

// Read from the contract's groups directly: `HttpApi.reflect` also works out every endpoint's
// payloads, successes and errors, 3 MB of garbage at start-up for a method, a path and an annotation.
const routes: ReadonlyArray<RouteInfo> = Object.values(Api.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint): RouteInfo => ({
    method: endpoint.method,
    template: endpoint.path,
    pattern: toRegExp(endpoint.path),
    access: accessOf(endpoint),
    bodies: bodiesOf(endpoint)
  }))
)

/** Methods that exist for a path (empty when the path is unknown). */
export const allowedMethods = (path: string): Array<string> => {
  if (path === MCP_PATH) return [...MCP_METHODS]
  if (isDashboardPath(path)) return ["GET", "HEAD"]
  const methods = new Set<string>()
  for (const route of routes) if (route.pattern.test(path)) methods.add(route.method)
  if (methods.has("GET")) methods.add("HEAD")
  return Array.from(methods).sort()
}

const exact = new Map(routes.filter((route) => !route.template.includes(":")).map((route) => [`${route.method} ${route.template}`, route]))
const parametric = routes.filter((route) => route.template.includes(":"))

/** MCP: a key of any role but `ingest`, counted (each further tool call of a batch is charged by the transport). */
const MCP_ROUTE: Route = { template: MCP_PATH, access: Access.read, bodies: JSON_OBJECT }
/** The dashboard's routes (DECISIONS §22), served by the edge: its assets, and the shell for every other `/ui` path. */
const UI_ROUTE: Route = { template: "/ui", access: Access.open, bodies: JSON_OBJECT }
const UI_ASSET_ROUTE: Route = { template: "/ui/assets/:file", access: Access.open, bodies: JSON_OBJECT }
/** Another method on a dashboard path: no key looked at either, answered 405. */
const UI_OTHER: Route = { template: "unmatched", access: Access.open, bodies: JSON_OBJECT }
/** No route: it needs a key and is counted like any other, then answered 404 or 405 (Forward.ts). */
export const UNMATCHED: Route = { template: "unmatched", access: Access.read, bodies: JSON_OBJECT }

/** The route a request matches (HEAD that of GET, as the router serves it), or `UNMATCHED`. */
export const matchRoute = (method: string, path: string): Route => {
  if (path === MCP_PATH) return MCP_ROUTE
  const asked = method === "HEAD" ? "GET" : method
  if (isDashboardPath(path)) return asked !== "GET" ? UI_OTHER : path.startsWith(DASHBOARD_ASSETS) ? UI_ASSET_ROUTE : UI_ROUTE
  const hit = exact.get(`${asked} ${path}`)
  if (hit !== undefined) return hit
  for (const route of parametric) if (route.method === asked && route.pattern.test(path)) return route
  return UNMATCHED
}

/** The operation the guards are asked to allow for a request of `route` (its label built only when a refusal names it). */
export const httpOperation = (method: string, path: string, route: Route): Operation => ({
  get label() {
    return `${method} ${path.slice(0, 100)}`
  },
  role: route.access.role,
  authenticated: !route.access.open,
  counted: route.access.counted
})
