/**
 * The handler the edge hands /mcp to, built on first use. The MCP surface
 * (`@effect/ai`'s McpServer, its schemas, the tools and the transport: about 90 ms of start-up and
 * 11 MiB of idle memory, measured) is loaded and built on the first request to /mcp, in the
 * server's scope, so a service nobody reaches over MCP does not carry it. Concurrent first
 * requests wait for the same build. Whatever the handler throws is answered as a 500 by the edge's
 * last resort (`EdgeRequest.contain`): it runs in a promise callback, where a throw would become an
 * unhandled rejection and end the process.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AnalyzeService } from "../../Analysis/AnalyzeService.js"
import type { Guards } from "../../Auth/Guards.js"
import type { Scopes } from "../../Auth/Scopes.js"
import type { Catalogue } from "../../Catalogue/Catalogue.js"
import type { AppConfig } from "../../Config.js"
import type { DiagnoseService } from "../../Diagnose/DiagnoseService.js"
import { writeErrorReply } from "../../Edge/Replies.js"
import type { EdgeRequest } from "../../Edge/RequestContext.js"
import { InternalError } from "../../Errors.js"
import type { ErrorReporting } from "../../Observability/ErrorReporting.js"
import type { RunsService } from "../../Runs/RunsService.js"
import type { ProblemsService } from "../../Problems/Service.js"
import { McpHttp, type McpHttpShape } from "../../Edge/McpHttp.js"

/** The services the MCP tools use, and the guards that check each tool's role. */
export type McpRequirements = AnalyzeService | DiagnoseService | RunsService | ProblemsService | Catalogue | ErrorReporting | Guards | AppConfig | Scopes

export const McpHttpOnFirstUse: Layer.Layer<McpHttp, never, McpRequirements> = Layer.scoped(
  McpHttp,
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const runtime = yield* Effect.runtime<McpRequirements>()
    let built: Promise<McpHttpShape> | undefined
    const build = () =>
      Runtime.runPromise(
        runtime,
        Effect.gen(function*() {
          const { McpHttpServiceLive } = yield* Effect.promise(() => import("./Mcp.js"))
          const context = yield* Layer.buildWithScope(McpHttpServiceLive, scope)
          return Context.get(context, McpHttp)
        })
      )
    const fail = (response: ServerResponse, edge: EdgeRequest, message: string) => {
      const error = new InternalError({ message })
      edge.noteFailure({ kind: "internal_error", message: error.message, pattern: null, mode: null })
      if (response.headersSent) response.destroy()
      else writeErrorReply(response, error)
    }
    const handle = (request: IncomingMessage, response: ServerResponse, edge: EdgeRequest) => {
      built ??= build()
      built.then(
        // A promise callback: a throw here would be an unhandled rejection, so the edge contains it.
        (mcp) => edge.contain(() => mcp.handle(request, response, edge)),
        () => fail(response, edge, "the MCP surface could not be started; the request id identifies it in the logs")
      )
    }
    return { handle }
  })
)
