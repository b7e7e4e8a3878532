/**
 * The problems API over REST (DECISIONS §19): thin handlers over ProblemsService; a change's body
 * is the one the edge read (its bounds apply), replayed to the contract, which decodes it
 * (Edge/Replay.ts: 415 unless JSON, 400 naming the field). The digest renders
 * as JSON, Markdown or HTML (`?output=`, decoded by the contract, else `Accept`): a response of
 * its own, which `.handle` writes as it is; a 503 `store_unavailable` gets its Retry-After as the
 * runs routes' do.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Api } from "../../Api.js"
import { AppConfig } from "../../Config.js"
import { digestHtml, digestMarkdown } from "../../Problems/Digest.js"
import { ProblemsService } from "../../Problems/Service.js"
import { forCaller } from "./RequestCaller.js"
import { withRetryAfter } from "./RunsHttp.js"

export const ProblemsHttpLive = HttpApiBuilder.group(Api, "problems", (handlers) =>
  Effect.gen(function*() {
    const problems = yield* ProblemsService
    const { alerts } = yield* AppConfig
    const base = Option.getOrNull(alerts.publicUrl)
    const caller = <A, E, R>(effect: Effect.Effect<A, E, R>) => withRetryAfter(forCaller(effect))
    return handlers
      .handle("listProblems", ({ urlParams }) => caller(problems.list(urlParams)))
      .handle("compareProblems", ({ urlParams }) => caller(problems.compare(urlParams)))
      .handle("getProblem", ({ path }) => caller(problems.get(path.id)))
      .handle("updateProblem", ({ path, payload }) => caller(problems.update(path.id, payload)))
      .handle("mergeProblem", ({ path, payload }) => caller(problems.merge(path.id, payload.into)))
      .handle("detachRun", ({ path, payload }) => caller(problems.detach(path.id, payload.run_id)))
      .handle("listDeliveries", ({ urlParams }) => caller(problems.deliveries(urlParams)))
      .handle("getDigest", ({ request, urlParams }) =>
        caller(
          Effect.map(problems.digest, (digest) => {
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
