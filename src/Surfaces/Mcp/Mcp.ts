/**
 * The MCP surface as Layers (DECISIONS §14): `@effect/ai`'s McpServer with this service's tools,
 * resources and prompts, on the protocol of Protocol.ts; served over HTTP at /mcp behind the edge
 * (HttpTransport.ts) and over stdio by `svc mcp` (Stdio.ts). Both transports reach the same
 * tools, which use the same services as REST.
 */
import { McpServer } from "@effect/ai"
import * as Layer from "effect/Layer"
import { VERSION } from "../../Api.js"
import { McpHttpLive } from "./HttpTransport.js"
import { McpLibraryLive } from "./Library.js"
import { McpProtocolLive } from "./Protocol.js"
import { McpToolsLive } from "./Tools.js"

export const SERVER_NAME = "pattern-analysis-service"

/** The McpServer with everything registered, and the protocol its transports open connections on. */
export const McpCoreLive = Layer.mergeAll(McpToolsLive, McpLibraryLive).pipe(
  Layer.provideMerge(McpServer.layer({ name: SERVER_NAME, version: VERSION })),
  Layer.provideMerge(McpProtocolLive)
)

/** The Streamable HTTP transport the edge hands /mcp to. */
export const McpHttpServiceLive = McpHttpLive.pipe(Layer.provide(McpCoreLive))
