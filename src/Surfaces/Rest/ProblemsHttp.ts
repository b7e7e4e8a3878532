/**
 * The problems API over REST (DECISIONS §19): thin handlers over ProblemsService; a change's body
 * is the one the edge read (its bounds apply), decoded here by the contract's schema. The digest renders
 * as JSON, Markdown or HTML (`?output=`, else `Accept`); a 503 `store_unavailable` gets its
 * Retry-After as the runs routes' do.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Option, Schema } from "effect"
import { Api } from "../../Api.js"
import { AppConfig } from "../../Config.js"
import { parseJsonObject, requireJson } from "../../Intake/Json.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"
import { ProblemDetach, ProblemMerge, ProblemUpdate } from "../../Contract/ProblemsContract.js"
import { refusalOf } from "../../Errors.js"
import { digestHtml, digestMarkdown } from "../../Problems/Digest.js"
import { ProblemsService } from "../../Problems/Service.js"
import { withRetryAfter } from "./RunsHttp.js"

const EMPTY = new Uint8Array(0)

/**
 * A change's body, as the edge read it (bounded, counted in flight, DECISIONS §16): JSON only
 * (415), then the contract's schema (400 naming the field).
 */
const payloadOf = <A, I>(schema: Schema.Schema<A, I>, contentType: string | undefined) =>
  Effect.gen(function*() {
    yield* requireJson(contentType, { jsonLines: false, what: "the change" })
    const edge = yield* CurrentRequest
    const body = yield* parseJsonObject(edge.body ?? EMPTY)
    return yield* Either.mapLeft(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(body), (error) => refusalOf(error))
  })

export const ProblemsHttpLive = HttpApiBuilder.group(Api, "problems", (handlers) =>
  Effect.gen(function*() {
    const problems = yield* ProblemsService
    const { alerts } = yield* AppConfig
    const base = Option.getOrNull(alerts.publicUrl)
    const caller = <A, E, R>(run: (keyName: string | null) => Effect.Effect<A, E, R>) => withRetryAfter(Effect.flatMap(CurrentRequest, (edge) => run(edge.keyName)))
    return handlers
      .handle("listProblems", ({ urlParams }) => caller((keyName) => problems.list(keyName, urlParams)))
      .handle("compareProblems", ({ urlParams }) => caller((keyName) => problems.compare(keyName, urlParams)))
      .handle("getProblem", ({ path }) => caller((keyName) => problems.get(keyName, path.id)))
      .handleRaw("updateProblem", ({ path, request }) =>
        caller((keyName) =>
          Effect.flatMap(payloadOf(ProblemUpdate, request.headers["content-type"]), (change) =>
            Effect.map(problems.update(keyName, path.id, change), (problem) => HttpServerResponse.unsafeJson(problem)))
        ))
      .handleRaw("mergeProblem", ({ path, request }) =>
        caller((keyName) =>
          Effect.flatMap(payloadOf(ProblemMerge, request.headers["content-type"]), (change) =>
            Effect.map(problems.merge(keyName, path.id, change.into), (problem) => HttpServerResponse.unsafeJson(problem)))
        ))
      .handleRaw("detachRun", ({ path, request }) =>
        caller((keyName) =>
          Effect.flatMap(payloadOf(ProblemDetach, request.headers["content-type"]), (change) =>
            Effect.map(problems.detach(keyName, path.id, change.run_id), (problem) => HttpServerResponse.unsafeJson(problem)))
        ))
      .handle("listDeliveries", ({ urlParams }) => caller((keyName) => problems.deliveries(keyName, urlParams)))
      .handleRaw("getDigest", ({ request, urlParams }) =>
        caller((keyName) =>
          Effect.map(problems.digest(keyName), (digest) => {
            const accept = request.headers["accept"] ?? ""
            const output = urlParams.output ?? (accept.includes("text/markdown") ? "markdown" : accept.includes("text/html") ? "html" : "json")
            return output === "markdown"
              ? HttpServerResponse.text(digestMarkdown(digest, base), { contentType: "text/markdown; charset=utf-8" })
              : output === "html"
              ? HttpServerResponse.text(digestHtml(digest, base), { contentType: "text/html; charset=utf-8" })
              : HttpServerResponse.unsafeJson(digest)
          })
        ))
  }))
