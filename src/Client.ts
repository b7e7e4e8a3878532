/**
 * The typed client, derived from the same HttpApi contract as the server and the OpenAPI
 * document. Exported as `pattern-analysis-service/client` and as the package
 * `@pattern-analysis-service/client` (compiled by scripts/build-client.mjs; docs/packaging.md).
 *
 *   const client = yield* makeClient("http://127.0.0.1:8000")
 *   const patterns = yield* client.catalogue.listPatterns()
 *   const result = yield* client.analyze.lewin({ payload: { trace, mode: "quick" } })
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import { Api } from "./Api.js"

export { Api } from "./Api.js"

/** A client for a running service; `apiKey` is sent as `Authorization: Bearer <key>` when given. */
export const makeClient = (baseUrl: string, options: { readonly apiKey?: string } = {}) =>
  HttpApiClient.make(Api, {
    baseUrl,
    transformClient: (client) =>
      options.apiKey === undefined
        ? client
        : HttpClient.mapRequest(client, HttpClientRequest.bearerToken(options.apiKey))
  })

export type Client = Effect.Effect.Success<ReturnType<typeof makeClient>>
