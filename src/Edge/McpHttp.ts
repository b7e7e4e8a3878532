/** The handler the edge hands /mcp to (built on first use by src/Surfaces/Mcp/Entry.ts, HttpTransport.ts inside). */
import * as Context from "effect/Context"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { EdgeRequest } from "./RequestContext.js"

export interface McpHttpShape {
  /** Answers one request to /mcp that passed the edge (body read for POSTs). */
  readonly handle: (request: IncomingMessage, response: ServerResponse, edge: EdgeRequest) => void
}

export class McpHttp extends Context.Tag("McpHttp")<McpHttp, McpHttpShape>() {}
