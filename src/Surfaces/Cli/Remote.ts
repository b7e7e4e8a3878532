/**
 * The commands against a running service (`--url`, with `--api-key` or SVC_API_KEY): every call
 * through the typed HttpApi client (Client.ts), so requests and answers are checked against the
 * same contract the service serves. Errors come back as the service's typed errors and keep their
 * kind; a service that does not answer is `unreachable` (exit 3). A run's report is rendered by the
 * service (its renderers are diagnose's, and it holds the run's events and trace lines).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import { analyzeByName } from "./AnalyzeByName.generated.js"
import { makeClient } from "../../Client.js"
import { callerSettings, invalidConfiguration } from "../../Config.js"
import { errorKinds } from "../../Errors.js"
import { MAX_PAGE } from "../../Contract/Statuses.js"
import { type Backend, CliFailure, IMPORT_IS_LOCAL, type ProblemsBackend, REGROUP_IS_LOCAL, type RunsBackend } from "./Backend.js"
import { renderedOf } from "./Report.js"

export interface RemoteOptions {
  readonly url: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  /** --max-bytes: what a trace file may hold before it is sent (the service's own limit still counts). */
  readonly maxBytes: Option.Option<number>
}

const decoder = new TextDecoder()

const kindOf = (tag: string): string | undefined => Object.entries(errorKinds).find(([name]) => name === tag)?.[1].kind

type ClientFailure = { readonly _tag: string; readonly message: string } | HttpClientError.HttpClientError | ParseResult.ParseError

export const makeRemoteBackend = (options: RemoteOptions): Effect.Effect<Backend, CliFailure> =>
  Effect.gen(function*() {
    // What the CLI reads of a trace before sending it: --max-bytes, else this environment's
    // SVC_API_MAX_BODY_BYTES (the service's default unless set). The service's limit still counts;
    // a service that accepts more needs the limit raised here too (the message says so).
    const limit = Option.isSome(options.maxBytes) ? options.maxBytes.value : yield* callerSettings.maxBodyBytes.pipe(
      Effect.mapError((error) => new CliFailure({ kind: "usage", message: invalidConfiguration(error).message }))
    )
    const base = options.url.replace(/\/+$/, "")
    const client = yield* makeClient(base, Option.match(options.apiKey, { onNone: () => ({}), onSome: (key) => ({ apiKey: Redacted.value(key) }) })).pipe(
      Effect.provide(FetchHttpClient.layer)
    )
    const failureOf = (error: ClientFailure): CliFailure => {
      if (HttpClientError.isHttpClientError(error)) {
        return error._tag === "RequestError"
          ? new CliFailure({ kind: "unreachable", message: `no service answered at ${base}: ${error.reason === "Transport" ? "connection failed" : error.reason}` })
          : new CliFailure({
            kind: "unexpected",
            message: `the service at ${base} answered ${error.response.status} with a body its contract does not describe (is it pattern-analysis-service?)`
          })
      }
      if (ParseResult.isParseError(error)) {
        return new CliFailure({ kind: "unexpected", message: `an answer of the service at ${base} did not match its contract: ${error.message.slice(0, 300)}` })
      }
      return new CliFailure({ kind: kindOf(error._tag) ?? "unexpected", message: error.message })
    }
    const call = <A>(effect: Effect.Effect<A, ClientFailure>) => effect.pipe(Effect.mapError(failureOf), Effect.provide(FetchHttpClient.layer))
    /**
     * The body as the service sent it, once the typed client has decoded and checked it (the body
     * is read once and kept by the response): printed as it is, keys in the service's order.
     */
    const served = (response: HttpClientResponse.HttpClientResponse) =>
      Effect.flatMap(call(response.arrayBuffer), (bytes) =>
        Effect.try({
          try: (): unknown => JSON.parse(decoder.decode(bytes)),
          catch: () => new CliFailure({ kind: "unexpected", message: `the service at ${base} answered with a body that is not JSON` })
        }))
    const typedAndServed = <A>(effect: Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], ClientFailure>) =>
      Effect.flatMap(call(effect), ([value, response]) => Effect.map(served(response), (body) => ({ value, body })))

    const runs: RunsBackend = {
      submit: (envelope) => typedAndServed(client.runs.submitRuns({ payload: envelope, urlParams: {}, withResponse: true })),
      list: (query) => call(client.runs.listRuns({ urlParams: query })),
      get: (id) => typedAndServed(client.runs.getRun({ path: { id }, withResponse: true })),
      report: (id, output, artifact) =>
        Effect.gen(function*() {
          const [, response] = yield* call(
            client.runs.getRunReport({ path: { id }, urlParams: artifact === undefined ? { output } : { output, artifact }, withResponse: true })
          )
          // The body as the service rendered it (read once, kept by the response).
          return yield* renderedOf(output, decoder.decode(yield* call(response.arrayBuffer)), base)
        }),
      retry: (id) => typedAndServed(client.runs.retryRun({ path: { id }, withResponse: true })),
      explain: (id) => typedAndServed(client.runs.explainRun({ path: { id }, withResponse: true })),
      // No bulk route: the runs in that state, listed first (a retried run leaves the list), then one retry each.
      retryAll: (status) =>
        Effect.gen(function*() {
          const ids: Array<string> = []
          let cursor: string | undefined = undefined
          do {
            const page: { readonly runs: ReadonlyArray<{ readonly id: string }>; readonly next_cursor: string | null } = yield* call(
              client.runs.listRuns({ urlParams: cursor === undefined ? { status, limit: MAX_PAGE } : { status, limit: MAX_PAGE, cursor } })
            )
            for (const run of page.runs) ids.push(run.id)
            cursor = page.next_cursor ?? undefined
          } while (cursor !== undefined)
          let count = 0
          for (const id of ids) {
            // A run that left the state meanwhile (retried by another caller, deleted) is not counted.
            const retried = yield* call(client.runs.retryRun({ path: { id } })).pipe(
              Effect.as(true),
              Effect.catchIf((failure) => failure.kind === "conflict" || failure.kind === "not_found", () => Effect.succeed(false))
            )
            if (retried) count += 1
          }
          return count
        }),
      exportLines: (filter) => call(client.runs.exportRuns({ urlParams: filter })),
      importLines: () => Effect.fail(new CliFailure({ kind: "usage", message: IMPORT_IS_LOCAL }))
    }

    const problems: ProblemsBackend = {
      list: (query) => call(client.problems.listProblems({ urlParams: query })),
      get: (id) => call(client.problems.getProblem({ path: { id } })),
      update: (id, update) => call(client.problems.updateProblem({ path: { id }, payload: update })),
      merge: (id, into) => call(client.problems.mergeProblem({ path: { id }, payload: { into } })),
      detach: (id, runId) => call(client.problems.detachRun({ path: { id }, payload: { run_id: runId } })),
      compare: (query) => call(client.problems.compareProblems({ urlParams: query })),
      digest: Effect.flatMap(call(client.problems.getDigest({ urlParams: { output: "json" } })), (digest) =>
        typeof digest === "string"
          ? Effect.fail(new CliFailure({ kind: "unexpected", message: `the service at ${base} answered the digest in JSON with something else` }))
          : Effect.succeed(digest)),
      regroup: () => Effect.fail(new CliFailure({ kind: "usage", message: REGROUP_IS_LOCAL }))
    }

    const backend: Backend = {
      where: base,
      readLimit: limit,
      analyze: (slug, envelope) =>
        Option.match(analyzeByName(client, slug, envelope), {
          // A name outside this client's catalogue: the service says what it knows of it.
          onNone: () =>
            call(Effect.flatMap(client.analyze.unknownPattern({ path: { name: slug } }), () =>
              Effect.fail(new CliFailure({ kind: "unknown_pattern", message: `no pattern named ${JSON.stringify(slug)}` }))
            )),
          onSome: (request) => Effect.map(typedAndServed(request), ({ value, body }) => ({ answer: value, body }))
        }),
      diagnose: (envelope, withEvents) =>
        Effect.gen(function*() {
          const { value, body } = yield* typedAndServed(client.diagnose.diagnose({ payload: envelope, urlParams: { output: "json" }, withResponse: true }))
          if (typeof value === "string") {
            return yield* new CliFailure({ kind: "unexpected", message: `the service at ${base} answered a diagnose in JSON with something else` })
          }
          if (!withEvents) return { report: value.report, events: [], body }
          // The renderers that show the run read its events, as the service normalized them.
          const normalized = yield* call(client.traces.normalize({ payload: envelope, urlParams: {} }))
          return { report: value.report, events: "trace" in normalized ? normalized.trace.events : [], body }
        }),
      check: (envelope) => typedAndServed(client.diagnose.check({ payload: envelope, urlParams: {}, withResponse: true })),
      normalize: (envelope) => Effect.map(typedAndServed(client.traces.normalize({ payload: envelope, urlParams: {}, withResponse: true })), ({ body }) => body),
      patterns: Effect.map(typedAndServed(client.catalogue.listPatterns({ withResponse: true })), ({ body }) => body),
      pattern: (name, part) => {
        const path: { readonly path: { readonly name: string }; readonly withResponse: true } = { path: { name }, withResponse: true }
        switch (part) {
          case "record":
            return Effect.map(typedAndServed(client.catalogue.getPattern(path)), ({ body }) => body)
          case "playbooks":
            return Effect.map(typedAndServed(client.catalogue.getPlaybooks(path)), ({ body }) => body)
          case "composition":
            return Effect.map(typedAndServed(client.catalogue.getComposition(path)), ({ body }) => body)
          case "citations":
            return call(client.catalogue.getCitations({ path: { name } }))
        }
      },
      runs,
      problems
    }
    return backend
  })
