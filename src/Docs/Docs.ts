/**
 * API documentation served offline: the OpenAPI 3.1 document generated from the HttpApi
 * contract, and the Swagger UI and Redoc pages whose assets come from npm packages
 * (swagger-ui-dist, redoc) and are served by the service itself. Assets are read on first use,
 * from the build's copy of them when built.
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Api } from "../Api.js"

const require = createRequire(import.meta.url)
const encoder = new TextEncoder()

export interface Asset {
  readonly contentType: string
  readonly bytes: () => Uint8Array
}

const once = <A>(make: () => A): (() => A) => {
  let value: { readonly a: A } | undefined
  return () => {
    if (value === undefined) value = { a: make() }
    return value.a
  }
}

/**
 * Where a package's assets are read from: the build's copy (dist/assets/<package>, made by
 * scripts/build.mjs, so an installed package needs neither swagger-ui-dist nor redoc installed),
 * else the package itself (running from source).
 */
const assetsOf = (packageName: string): string => {
  const built = join(import.meta.dirname, "..", "assets", packageName)
  return existsSync(built) ? built : dirname(require.resolve(`${packageName}/package.json`))
}

const fileAsset = (
  packageName: string,
  file: string,
  contentType: string,
  rewrite?: (text: string) => string
): Asset => ({
  contentType,
  bytes: once(() => {
    const bytes = readFileSync(join(assetsOf(packageName), file))
    return rewrite === undefined ? new Uint8Array(bytes) : encoder.encode(rewrite(bytes.toString("utf8")))
  })
})

/**
 * Redoc's side menu always shows a "powered by" badge whose logo is fetched from a CDN; offline
 * (and under our CSP) that is a failed external request. The bundle is served with that one URL
 * pointing at an inline SVG instead.
 */
const REDOC_CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
const INLINE_LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E"
export const offlineRedoc = (bundle: string) => bundle.split(REDOC_CDN_LOGO).join(INLINE_LOGO)

const textAsset = (text: string, contentType: string): Asset => ({ contentType, bytes: once(() => encoder.encode(text)) })

const JS = "text/javascript; charset=utf-8"

/** Relative URLs, so the pages also work behind a proxy that mounts the service under a prefix. */
const swaggerPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pattern-analysis-service: API (Swagger UI)</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`

const swaggerInit = `window.ui = SwaggerUIBundle({
  url: "openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout"
});
`

const redocPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pattern-analysis-service: API reference (Redoc)</title>
</head>
<body>
<div id="redoc"></div>
<script src="redoc/redoc.standalone.js"></script>
<script src="redoc/init.js"></script>
</body>
</html>
`

const redocInit = `Redoc.init("openapi.json", { hideDownloadButton: false, expandResponses: "200" }, document.getElementById("redoc"));
`

export const swaggerUiHtml = textAsset(swaggerPage, "text/html; charset=utf-8")
export const redocHtml = textAsset(redocPage, "text/html; charset=utf-8")

export const swaggerAssets: ReadonlyMap<string, Asset> = new Map([
  ["swagger-ui.css", fileAsset("swagger-ui-dist", "swagger-ui.css", "text/css; charset=utf-8")],
  ["swagger-ui-bundle.js", fileAsset("swagger-ui-dist", "swagger-ui-bundle.js", JS)],
  ["favicon-32x32.png", fileAsset("swagger-ui-dist", "favicon-32x32.png", "image/png")],
  ["init.js", textAsset(swaggerInit, JS)]
])

export const redocAssets: ReadonlyMap<string, Asset> = new Map([
  ["redoc.standalone.js", fileAsset("redoc", "bundles/redoc.standalone.js", JS, offlineRedoc)],
  ["init.js", textAsset(redocInit, JS)]
])

/** The OpenAPI 3.1 document of the contract, generated once. */
export const openApiDocument = once(() => OpenApi.fromApi(Api))
export const openApiJson = once(() => encoder.encode(JSON.stringify(openApiDocument())))
