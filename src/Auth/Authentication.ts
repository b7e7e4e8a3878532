/**
 * The security declaration of the contract: `Authorization: Bearer <key>` or `X-API-Key: <key>`
 * on the catalogue and analyze endpoints. It puts the schemes into OpenAPI and the typed client.
 * Enforcement happens earlier, in the outer guards (src/Http/Guards.ts), before routing and before
 * any body byte is read; by the time this middleware runs the request has already passed them,
 * so its implementation has nothing left to check.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect, Layer } from "effect"
import { UnauthorizedWire } from "../Errors.js"

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: UnauthorizedWire,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "Authorization: Bearer <API key> (preferred). Required when SVC_API_REQUIRE_AUTH=true.")
    ),
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" }).pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "X-API-Key: <API key>. Required when SVC_API_REQUIRE_AUTH=true.")
    )
  }
}) {}

/** Already enforced by the outer guards; see the module comment. */
export const AuthenticationLive = Layer.succeed(Authentication, {
  bearer: () => Effect.void,
  apiKey: () => Effect.void
})
