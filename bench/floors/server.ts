/**
 * The stack's own floor for start-up (issue 52 item 2): an Effect HttpApi server on
 * platform-node with one endpoint, GET /readyz, and none of the service's code. bench/startup.ts
 * bundles it as the service is bundled (scripts/build-options.mjs) and starts it beside the bare
 * `node:http` server and the service, in the same rounds: how much of the service's start-up the
 * chosen stack costs before any of the product's code runs. Listens on SVC_PORT, as the service does.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as Etag from "@effect/platform/Etag"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpPlatform from "@effect/platform-node/NodeHttpPlatform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"

const Ready = Schema.Struct({ status: Schema.Literal("ready") }).annotations({ identifier: "FloorReady" })

class Probes extends HttpApiGroup.make("probes").add(HttpApiEndpoint.get("readyz", "/readyz").addSuccess(Ready)) {}

class FloorApi extends HttpApi.make("floor").add(Probes) {}

const ProbesLive = HttpApiBuilder.group(FloorApi, "probes", (handlers) => handlers.handle("readyz", () => Effect.succeed({ status: "ready" as const })))

const ServerLive = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(FloorApi).pipe(Layer.provide(ProbesLive))),
  // The server and what the platform's handler needs, as the service provides them (src/Edge/Server.ts):
  // the build gives `NodeHttpServer.layer` no NodeContext (src/Edge/NoNodeContext.ts).
  Layer.provide(Layer.scoped(HttpServer.HttpServer, NodeHttpServer.make(createServer, { host: "127.0.0.1", port: Number(process.env["SVC_PORT"] ?? 0) }))),
  Layer.provide(Layer.mergeAll(NodeHttpPlatform.layer, Etag.layerWeak, NodeFileSystem.layer, NodePath.layer))
)

NodeRuntime.runMain(Layer.launch(ServerLive))
