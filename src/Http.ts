/**
 * Composition of the HTTP side: the HttpApi built from the contract and the REST handlers, served
 * behind the edge (Edge/Server.ts). Shared resources (config, catalogue, readiness, metrics, the
 * analyzer and its provider clients) are provided outside this layer (App.ts) so they outlive the
 * requests that use them while the server drains.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import { Layer } from "effect"
import { Api } from "./Api.js"
import { patternCodes } from "./Catalogue/Catalogue.js"
import { answerDecodeRefusals } from "./Edge/Forward.js"
import { ServerLive } from "./Edge/Server.js"
import { AnalyzeAtEdgeLive, AnalyzeRestLive } from "./Surfaces/Rest/AnalyzeHttp.js"
import { AnalyzeHttpLive } from "./Surfaces/Rest/AnalyzeHttp.generated.js"
import { CatalogueHttpLive } from "./Surfaces/Rest/CatalogueHttp.js"
import { DocsHttpLive } from "./Surfaces/Rest/DocsHttp.js"
import { ProbesHttpLive } from "./Surfaces/Rest/ProbesHttp.js"
import { DiagnoseHttpLive } from "./Surfaces/Rest/DiagnoseHttp.js"
import { McpHttpOnFirstUse } from "./Surfaces/Mcp/Entry.js"
import { TracesHttpLive } from "./Surfaces/Rest/TracesHttp.js"
import { OtlpHttpLive } from "./Surfaces/Rest/OtlpHttp.js"
import { RunsHttpLive } from "./Surfaces/Rest/RunsHttp.js"
import { ProblemsHttpLive } from "./Surfaces/Rest/ProblemsHttp.js"

export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([ProbesHttpLive, CatalogueHttpLive, AnalyzeHttpLive, TracesHttpLive, DiagnoseHttpLive, RunsHttpLive, ProblemsHttpLive, OtlpHttpLive, DocsHttpLive]),
  Layer.provide(AnalyzeRestLive)
)

const slugs = new Set(patternCodes.map((code) => code.slug))

export const HttpLive = (host: string, port: number) =>
  ServerLive(host, port, slugs).pipe(
    // the contract's refusals answered as the documented 400 (Edge/Forward.ts), not HttpApi's own body
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer, HttpApiBuilder.middleware(answerDecodeRefusals)]),
    Layer.provide([ApiLive, AnalyzeAtEdgeLive.pipe(Layer.provide(AnalyzeRestLive))]),
    Layer.provide(McpHttpOnFirstUse),
    // The edge makes a request's one server span (Observability/Tracing.ts); the platform's would be a second.
    HttpMiddleware.withTracerDisabledWhen(() => true)
  )
