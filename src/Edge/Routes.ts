/**
 * The route table derived from the HttpApi contract, used to tell 404 from 405 and to label
 * HTTP metrics with bounded route templates.
 */
import { Api } from "../Api.js"
import { isDashboardPath } from "../Auth/Operations.js"
import { DASHBOARD_ASSETS } from "../Ui/Shell.js"

/** Every analyze path starts so: `/v1/analyze/<pattern>`. */
export const ANALYZE_PREFIX = "/v1/analyze/"
/** The diagnose path, and its `pattern` label in `svc_requests_total` (DECISIONS §13). */
export const DIAGNOSE_PATH = "/v1/diagnose"
export const DIAGNOSE_LABEL = "diagnose"
/** The MCP endpoint (Streamable HTTP, DECISIONS §14): served by the MCP transport, not the HttpApi. */
export const MCP_PATH = "/mcp"
export const MCP_METHODS: ReadonlyArray<string> = ["DELETE", "POST"]

export interface RouteInfo {
  readonly method: string
  readonly template: string
  readonly pattern: RegExp
}

const toRegExp = (path: string): RegExp =>
  new RegExp(`^${path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`)

// Read from the contract's groups directly: `HttpApi.reflect` also works out every endpoint's
// payloads, successes and errors, 3 MB of garbage at start-up for a method and a path.
export const routes: ReadonlyArray<RouteInfo> = Object.values(Api.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint): RouteInfo => ({ method: endpoint.method, template: endpoint.path, pattern: toRegExp(endpoint.path) }))
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

const exact = new Map(routes.filter((route) => !route.template.includes(":")).map((route) => [`${route.method} ${route.template}`, route.template]))
const parametric = routes.filter((route) => route.template.includes(":"))

/** The dashboard's routes (DECISIONS §22), served by the edge: its assets, and the shell for every other `/ui` path. */
const UI_ROUTE = "/ui"
const UI_ASSET_ROUTE = "/ui/assets/:file"

/** The route template a request matched, or `unmatched` (keeps metric labels bounded). */
export const routeTemplate = (method: string, path: string): string => {
  if (path === MCP_PATH) return MCP_PATH
  if ((method === "GET" || method === "HEAD") && isDashboardPath(path)) return path.startsWith(DASHBOARD_ASSETS) ? UI_ASSET_ROUTE : UI_ROUTE
  const hit = exact.get(`${method} ${path}`)
  if (hit !== undefined) return hit
  for (const route of parametric) if (route.method === method && route.pattern.test(path)) return route.template
  return "unmatched"
}
