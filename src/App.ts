/**
 * The whole service as one Layer, given a validated configuration: the HTTP server (Http.ts) over
 * the resources (Resources.ts), which are built before it and finalized after it, so they outlive
 * the requests that use them while the server drains.
 */
import * as Layer from "effect/Layer"
import type { AppConfigShape } from "./Config.js"
import { HttpLive } from "./Http.js"
import { loggingLayer } from "./Observability/Logging.js"
import { ResourcesLive } from "./Resources.js"

export const AppLive = (config: AppConfigShape) =>
  HttpLive(config.host, config.port).pipe(
    Layer.provideMerge(ResourcesLive(config, { serving: true })),
    Layer.provide(loggingLayer(config.logLevel))
  )
