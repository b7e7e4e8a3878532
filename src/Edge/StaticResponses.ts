/**
 * The responses that never change while the process runs (health, liveness, the catalogue and
 * its per-pattern resources), as bytes prepared once. The edge answers these GETs itself, after
 * the guards and with the headers, metrics and log of every request. The HttpApi endpoints remain
 * the contract (OpenAPI, client) and serve the very same bytes (HEAD requests reach them): the
 * probe handlers read this table, the catalogue handlers the catalogue's prepared bytes.
 */
import * as Effect from "effect/Effect"
import { SERVER_NAME, VERSION } from "../Api.js"
import { Catalogue } from "../Catalogue/Catalogue.js"

export interface StaticResponse {
  readonly route: string
  readonly contentType: string
  readonly body: Uint8Array
}

const encoder = new TextEncoder()
const JSON_TYPE = "application/json"

export const makeStaticResponses = Effect.map(Catalogue, (catalogue) => {
  const table = new Map<string, StaticResponse>()
  table.set("/healthz", {
    route: "/healthz",
    contentType: JSON_TYPE,
    body: encoder.encode(JSON.stringify({ status: "ok", server: SERVER_NAME, version: VERSION, patterns: catalogue.entries.length }))
  })
  table.set("/livez", { route: "/livez", contentType: JSON_TYPE, body: encoder.encode(JSON.stringify({ status: "ok" })) })
  table.set("/v1/patterns", { route: "/v1/patterns", contentType: JSON_TYPE, body: catalogue.listJson })
  for (const entry of catalogue.entries) {
    const base = `/v1/patterns/${entry.pattern.code.slug}`
    table.set(base, { route: "/v1/patterns/:name", contentType: JSON_TYPE, body: entry.recordJson })
    table.set(`${base}/playbooks`, { route: "/v1/patterns/:name/playbooks", contentType: JSON_TYPE, body: entry.playbooksJson })
    table.set(`${base}/composition`, { route: "/v1/patterns/:name/composition", contentType: JSON_TYPE, body: entry.compositionJson })
    table.set(`${base}/citations`, { route: "/v1/patterns/:name/citations", contentType: "text/markdown; charset=utf-8", body: entry.citations })
  }
  return table
})
