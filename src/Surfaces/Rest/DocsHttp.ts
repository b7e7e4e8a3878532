/** /openapi.json, /docs, /redoc and their assets (an allow-list: nothing else is read from disk). */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../Api.js"
import { NotFound } from "../../Errors.js"
import { bytesAs, jsonBytes } from "./Responses.js"
import { type Asset, openApiJson, redocAssets, redocHtml, swaggerAssets, swaggerUiHtml } from "../../Docs/Docs.js"

const serveAsset = (assets: ReadonlyMap<string, Asset>, file: string) => {
  const asset = assets.get(file)
  return asset === undefined
    ? Effect.fail(new NotFound({ message: `no documentation asset named ${JSON.stringify(file.slice(0, 80))}` }))
    : Effect.sync(() => bytesAs(asset.bytes(), asset.contentType))
}

export const DocsHttpLive = HttpApiBuilder.group(Api, "docs", (handlers) =>
  Effect.succeed(
    handlers
      .handle("openapi", () => Effect.sync(() => jsonBytes(openApiJson())))
      .handle("swaggerUi", () => Effect.sync(() => bytesAs(swaggerUiHtml.bytes(), swaggerUiHtml.contentType)))
      .handle("redoc", () => Effect.sync(() => bytesAs(redocHtml.bytes(), redocHtml.contentType)))
      .handle("swaggerUiAsset", ({ path }) => serveAsset(swaggerAssets, path.file))
      .handle("redocAsset", ({ path }) => serveAsset(redocAssets, path.file))
  ))
