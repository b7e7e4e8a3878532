/**
 * The whole HTTP contract of pattern-analysis-service. One definition drives the server
 * (HttpApiBuilder), the OpenAPI 3.1 document (/openapi.json) and the typed client (Client.ts).
 * It imports schemas only (patterns' contracts, never their signals), so the client stays lean.
 * Authentication, rate limits and body limits are the edge's (src/Edge/); the contract declares
 * their errors and the API-key schemes (Contract/Security.ts).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import packageJson from "../package.json" with { type: "json" }
import { Access, EndpointAccess } from "./Contract/Access.js"
import { documentQueryOptions } from "./Contract/AnalyzeContract.js"
import { AnalyzeGroup } from "./Contract/AnalyzeGroup.generated.js"
import { DiagnoseGroup, documentDiagnoseOutputs } from "./Contract/DiagnoseContract.js"
import { TracesGroup } from "./Contract/TracesContract.js"
import { OtlpGroup } from "./Contract/OtlpContract.js"
import { ProblemsApiGroup, RunsApiGroup } from "./Contract/KeyedGroups.js"
import { apiKeyRequirement, declareSecuritySchemes } from "./Contract/Security.js"
import { CatalogueResponse, CompositionResponse, PatternRecord, PlaybooksResponse } from "./Catalogue/Resources.js"
import {
  AuthMisconfiguredWire,
  InternalErrorWire,
  NotFoundWire,
  RateLimitedWire,
  UnauthorizedWire,
  ForbiddenWire,
  OverloadedWire,
  UnknownPatternWire
} from "./Errors.js"

export const SERVER_NAME = "pattern-analysis-service"
export const VERSION: string = packageJson.version

export const Health = Schema.Struct({
  status: Schema.Literal("ok"),
  server: Schema.String.annotations({ description: "Server identifier." }),
  version: Schema.String.annotations({ description: "Service version." }),
  patterns: Schema.Int.annotations({ description: "Number of patterns in the catalogue." })
}).annotations({ identifier: "Health", description: "Health response." })

export const Liveness = Schema.Struct({ status: Schema.Literal("ok") }).annotations({
  identifier: "Liveness",
  description: "The process and its event loop run."
})

export const Ready = Schema.Struct({ status: Schema.Literal("ready") }).annotations({
  identifier: "Ready",
  description: "Serving: route traffic here."
})

export const NotReady = Schema.Struct({ status: Schema.Literal("starting", "draining") }).annotations({
  identifier: "NotReady",
  description: "Not serving new traffic: starting (catalogue not loaded) or draining (shutdown began)."
})

const PatternName = HttpApiSchema.param(
  "name",
  Schema.String.annotations({ description: "Pattern name (snake_case slug), e.g. `lewin`." })
)

const text = (contentType: string, description: string) =>
  HttpApiSchema.Text({ contentType }).annotations({ description })

export class ProbesGroup extends HttpApiGroup.make("probes")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Health: status, server, version, pattern count")
  )
  .add(
    HttpApiEndpoint.get("livez", "/livez")
      .addSuccess(Liveness)
      .annotate(OpenApi.Summary, "Liveness probe (never depends on providers or disk)")
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Ready)
      .addSuccess(NotReady, { status: 503 })
      .annotate(OpenApi.Summary, "Readiness probe: 503 while starting or draining")
  )
  .add(
    HttpApiEndpoint.get("metrics", "/metrics")
      .addSuccess(text("text/plain; version=0.0.4; charset=utf-8", "Prometheus text exposition."))
      .annotate(OpenApi.Summary, "Prometheus metrics")
  )
  .annotateEndpoints(EndpointAccess, Access.open)
  .annotate(OpenApi.Title, "Probes")
  .annotate(OpenApi.Description, "Health, liveness, readiness and metrics. Never authenticated or rate-limited.")
{}

export class CatalogueGroup extends HttpApiGroup.make("catalogue")
  .add(
    HttpApiEndpoint.get("listPatterns", "/v1/patterns")
      .addSuccess(CatalogueResponse)
      .annotate(OpenApi.Summary, "List the catalogue")
  )
  .add(
    HttpApiEndpoint.get("getPattern")`/v1/patterns/${PatternName}`
      .addSuccess(PatternRecord)
      .addError(UnknownPatternWire)
      .annotate(OpenApi.Summary, "One pattern's record")
  )
  .add(
    HttpApiEndpoint.get("getPlaybooks")`/v1/patterns/${PatternName}/playbooks`
      .addSuccess(PlaybooksResponse)
      .addError(UnknownPatternWire)
      .annotate(OpenApi.Summary, "A pattern's failure-mode playbooks")
  )
  .add(
    HttpApiEndpoint.get("getCitations")`/v1/patterns/${PatternName}/citations`
      .addSuccess(text("text/markdown; charset=utf-8", "The pattern's CITATIONS document."))
      .addError(UnknownPatternWire)
      .annotate(OpenApi.Summary, "A pattern's CITATIONS document (markdown)")
  )
  .add(
    HttpApiEndpoint.get("getComposition")`/v1/patterns/${PatternName}/composition`
      .addSuccess(CompositionResponse)
      .addError(UnknownPatternWire)
      .annotate(OpenApi.Summary, "A pattern's composition manifest")
  )
  .annotateEndpoints(EndpointAccess, Access.read)
  .annotate(OpenApi.Title, "Catalogue")
  .annotate(OpenApi.Description, "The 34 patterns and their reference resources.")
{}

const DocsAsset = HttpApiSchema.param("file", Schema.String)

export class DocsGroup extends HttpApiGroup.make("docs")
  .add(
    HttpApiEndpoint.get("openapi", "/openapi.json")
      .addSuccess(Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "OpenAPI 3.1 document." }))
      .annotate(OpenApi.Summary, "This OpenAPI document")
      .annotate(EndpointAccess, Access.open)
  )
  .add(
    HttpApiEndpoint.get("swaggerUi", "/docs")
      .addSuccess(text("text/html; charset=utf-8", "Swagger UI."))
      .annotate(OpenApi.Summary, "Interactive API documentation (Swagger UI, served offline)")
      .annotate(EndpointAccess, Access.openCounted)
  )
  .add(
    HttpApiEndpoint.get("redoc", "/redoc")
      .addSuccess(text("text/html; charset=utf-8", "Redoc."))
      .annotate(OpenApi.Summary, "Reference documentation (Redoc, served offline)")
      .annotate(EndpointAccess, Access.openCounted)
  )
  .add(
    HttpApiEndpoint.get("swaggerUiAsset")`/docs/${DocsAsset}`
      .addSuccess(HttpApiSchema.Uint8Array())
      .addError(NotFoundWire)
      .annotate(OpenApi.Exclude, true)
      .annotate(EndpointAccess, Access.openCounted)
  )
  .add(
    HttpApiEndpoint.get("redocAsset")`/redoc/${DocsAsset}`
      .addSuccess(HttpApiSchema.Uint8Array())
      .addError(NotFoundWire)
      .annotate(OpenApi.Exclude, true)
      .annotate(EndpointAccess, Access.openCounted)
  )
  .annotate(OpenApi.Title, "Documentation")
  .annotate(OpenApi.Description, "This OpenAPI document and the Swagger UI and Redoc pages, served offline.")
{}

// Each group as the service declares it, with the errors the edge may answer on its routes (Http.ts serves them).
export const CatalogueRoutes = CatalogueGroup.addError(UnauthorizedWire).addError(ForbiddenWire).addError(RateLimitedWire).addError(AuthMisconfiguredWire)
  .annotateEndpoints(OpenApi.Override, apiKeyRequirement)
// Requests with a body may also meet the bounds of DECISIONS §16: Host (403), bodies held at once (503).
export const AnalyzeRoutes = AnalyzeGroup.addError(ForbiddenWire).addError(OverloadedWire).annotateEndpoints(OpenApi.Override, apiKeyRequirement)
export const TracesRoutes = TracesGroup.addError(ForbiddenWire).addError(OverloadedWire).annotateEndpoints(OpenApi.Override, apiKeyRequirement)
export const DiagnoseRoutes = DiagnoseGroup.addError(ForbiddenWire).addError(OverloadedWire).annotateEndpoints(OpenApi.Override, apiKeyRequirement)
export const OtlpRoutes = OtlpGroup.annotateEndpoints(OpenApi.Override, apiKeyRequirement)

export class Api extends HttpApi.make("pattern-analysis-service")
  .add(ProbesGroup)
  .add(CatalogueRoutes)
  .add(AnalyzeRoutes)
  .add(TracesRoutes)
  .add(DiagnoseRoutes)
  .add(RunsApiGroup)
  .add(ProblemsApiGroup)
  .add(OtlpRoutes)
  .add(DocsGroup)
  .addError(InternalErrorWire)
  .annotate(OpenApi.Title, "pattern-analysis-service")
  .annotate(OpenApi.Version, VERSION)
  .annotate(
    OpenApi.Description,
    "Reads AI-agent traces through 34 organizational-behaviour frameworks and returns cited, evidence-checked detections. Every error is `{detail:{error, message}}`."
  )
  .annotate(OpenApi.Servers, [{ url: "/", description: "This service (same origin)" }])
  .annotate(OpenApi.Transform, (spec) => documentDiagnoseOutputs(documentQueryOptions(declareSecuritySchemes(spec))))
{}
