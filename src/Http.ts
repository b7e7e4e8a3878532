/**
 * Composition of the HTTP side: the HttpApi built from the contract and the REST handlers, served
 * behind the edge (Edge/Server.ts). Shared resources (config, catalogue, readiness, metrics, the
 * analyzer and its provider clients) are provided outside this layer (App.ts) so they outlive the
 * requests that use them while the server drains.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as Layer from "effect/Layer"
import * as HttpApi from "@effect/platform/HttpApi"
import { CatalogueRoutes, DiagnoseRoutes, DocsGroup, OtlpRoutes, ProbesGroup, TracesRoutes } from "./Api.js"
import { ProblemsApiGroup, RunsApiGroup } from "./Contract/KeyedGroups.js"
import { InternalErrorWire } from "./Errors.js"
import { patternCodes } from "./Catalogue/Catalogue.js"
import { answerDecodeRefusals } from "./Edge/Forward.js"
import { ServerLive } from "./Edge/Server.js"
import { AnalyzeAtEdgeLive } from "./Surfaces/Rest/AnalyzeHttp.js"
import { CatalogueHttpLive } from "./Surfaces/Rest/CatalogueHttp.js"
import { DocsHttpLive } from "./Surfaces/Rest/DocsHttp.js"
import { ProbesHttpLive } from "./Surfaces/Rest/ProbesHttp.js"
import { DiagnoseHttpLive } from "./Surfaces/Rest/DiagnoseHttp.js"
import { McpHttpOnFirstUse } from "./Surfaces/Mcp/Entry.js"
import { TracesHttpLive } from "./Surfaces/Rest/TracesHttp.js"
import { OtlpHttpLive } from "./Surfaces/Rest/OtlpHttp.js"
import { RunsHttpLive } from "./Surfaces/Rest/RunsHttp.js"
import { ProblemsHttpLive } from "./Surfaces/Rest/ProblemsHttp.js"

/**
 * What the HttpApi app behind the edge serves: the contract but its analyze group, whose requests
 * the edge answers itself (a known pattern's through AnalyzeAtEdge, any other name 404
 * `unknown_pattern`; src/Edge/Edge.ts), so no handler is registered that never runs. The analyze
 * endpoints stay in `Api`: OpenAPI, the typed client, the edge's route table and their access.
 */
export class ServedApi extends HttpApi.make("pattern-analysis-service")
  .add(ProbesGroup)
  .add(CatalogueRoutes)
  .add(TracesRoutes)
  .add(DiagnoseRoutes)
  .add(RunsApiGroup)
  .add(ProblemsApiGroup)
  .add(OtlpRoutes)
  .add(DocsGroup)
  .addError(InternalErrorWire)
{}

export const ApiLive = HttpApiBuilder.api(ServedApi).pipe(
  Layer.provide([ProbesHttpLive, CatalogueHttpLive, TracesHttpLive, DiagnoseHttpLive, RunsHttpLive, ProblemsHttpLive, OtlpHttpLive, DocsHttpLive])
)

const slugs = new Set(patternCodes.map((code) => code.slug))

export const HttpLive = (host: string, port: number) =>
  ServerLive(host, port, slugs).pipe(
    // the contract's refusals answered as the documented 400 (Edge/Forward.ts), not HttpApi's own body
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer, HttpApiBuilder.middleware(answerDecodeRefusals)]),
    Layer.provide([ApiLive, AnalyzeAtEdgeLive]),
    Layer.provide(McpHttpOnFirstUse),
    // The edge makes a request's one server span (Observability/Tracing.ts); the platform's would be a second.
    HttpMiddleware.withTracerDisabledWhen(() => true)
  )
