/**
 * Structured-output calls to the three kinds of model host (DECISIONS §4):
 * - hosted provider A through `@effect/ai-anthropic` (Messages API, forced tool call) and
 * - hosted provider B through `@effect/ai-openai` (Responses API, strict json_schema format),
 *   both in HostedClients.ts, loaded only when one of them is configured;
 * - the local model host through the OpenAI-compatible Chat Completions API with a
 *   `json_schema` response format (Ollama, llama.cpp server, vLLM, LM Studio).
 * Clients are built once at start-up for the configured providers and outlive requests. Every
 * failure becomes an AnalyzerError whose message names the provider and what failed, never a key.
 */
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { AppConfig } from "../Config.js"
import { AnalyzerError } from "../Errors.js"
import type { ModelCall, ModelReply } from "./ModelCall.js"
import { DEFAULT_BASE_URLS, type ResolvedProvider } from "./Resolution.js"
import { withTransientRetries } from "./Retry.js"

export interface ModelClientsShape {
  readonly generate: (target: ResolvedProvider, call: ModelCall) => Effect.Effect<ModelReply, AnalyzerError>
}

export class ModelClients extends Context.Tag("ModelClients")<ModelClients, ModelClientsShape>() {}

/** Chat Completions wire format (local model hosts). */
const ChatCompletion = Schema.Struct({
  choices: Schema.NonEmptyArray(
    Schema.Struct({ message: Schema.Struct({ content: Schema.NullOr(Schema.String) }), finish_reason: Schema.optional(Schema.NullOr(Schema.String)) })
  ),
  usage: Schema.optional(
    Schema.Struct({
      prompt_tokens: Schema.optional(Schema.Number),
      completion_tokens: Schema.optional(Schema.Number),
      // vLLM and other servers with prefix caching say how much of the prompt they reused.
      prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.NullOr(Schema.Number)) })))
    })
  )
})

const chatCompletionsUrl = (host: string) => (/\/v1$/.test(host) ? `${host}/chat/completions` : `${host}/v1/chat/completions`)

const localFailure = (reason: string) => new AnalyzerError({ message: `local model host ${reason}` })

const generateLocal = (
  client: HttpClient.HttpClient,
  target: { readonly model: string; readonly baseUrl: string },
  call: ModelCall
): Effect.Effect<ModelReply, AnalyzerError> =>
  Effect.gen(function*() {
    const body = {
      model: target.model,
      // The static blocks as one system message, the same bytes for every analysis of the pass:
      // llama.cpp's server and Ollama keep the evaluated prefix and reuse it.
      messages: [{ role: "system", content: call.system.join("\n\n") }, ...call.messages],
      response_format: { type: "json_schema", json_schema: { name: call.objectName, schema: call.jsonSchema, strict: true } },
      temperature: 0.2,
      max_tokens: call.maxOutputTokens,
      stream: false
    }
    const request = HttpClientRequest.post(chatCompletionsUrl(target.baseUrl)).pipe(
      HttpClientRequest.setBody(HttpBody.unsafeJson(body))
    )
    const response = yield* client.execute(request).pipe(
      Effect.mapError((error) =>
        error._tag === "RequestError"
          ? localFailure(`could not be reached (${error.reason}) after retrying within the deadline`)
          : localFailure(`sent a response that could not be read (${error.reason})`)
      )
    )
    if (response.status < 200 || response.status >= 300) {
      return yield* localFailure(`answered HTTP ${response.status}`)
    }
    const raw = yield* response.json.pipe(Effect.mapError(() => localFailure("sent a response body that is not JSON")))
    const completion = yield* Schema.decodeUnknown(ChatCompletion)(raw).pipe(
      Effect.mapError(() => localFailure("sent a response that is not a Chat Completions response"))
    )
    const choice = completion.choices[0]
    const value = yield* Effect.try({
      try: (): unknown => JSON.parse(choice.message.content ?? ""),
      catch: () =>
        localFailure(`returned content that is not JSON${choice.finish_reason === "length" ? " (cut at the token limit)" : ""}`)
    })
    return {
      value,
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
      cachedInputTokens: completion.usage?.prompt_tokens_details?.cached_tokens ?? 0,
      cacheWriteTokens: 0
    }
  })

export const ModelClientsLive: Layer.Layer<ModelClients, never, AppConfig | HttpClient.HttpClient> = Layer.scoped(
  ModelClients,
  Effect.gen(function*() {
    const { providers } = yield* AppConfig
    const http = yield* HttpClient.HttpClient
    const hostedConfigured = Option.isSome(providers.anthropicKey) || Option.isSome(providers.openaiKey)
    // Loaded only when needed (see HostedClients.ts).
    const hosted = hostedConfigured ? yield* Effect.promise(() => import("./HostedClients.js")) : undefined
    const anthropic = yield* Effect.transposeOption(Option.flatMap(Option.fromNullable(hosted), (module) =>
      Option.map(providers.anthropicKey, (apiKey) =>
        module.makeAnthropic(apiKey, Option.getOrElse(providers.anthropicBaseUrl, () => DEFAULT_BASE_URLS.anthropic)))))
    const openai = yield* Effect.transposeOption(Option.flatMap(Option.fromNullable(hosted), (module) =>
      Option.map(providers.openaiKey, (apiKey) =>
        module.makeOpenAi(apiKey, Option.getOrElse(providers.openaiBaseUrl, () => DEFAULT_BASE_URLS.openai)))))
    const local = withTransientRetries(http)

    const missing = (provider: string) => Effect.fail(new AnalyzerError({ message: `provider ${provider} has no client` }))
    const generate = (target: ResolvedProvider, call: ModelCall): Effect.Effect<ModelReply, AnalyzerError> => {
      switch (target.provider) {
        case "anthropic":
          return Option.match(anthropic, { onNone: () => missing("anthropic"), onSome: (run) => run(target.model, call) })
        case "openai":
          return Option.match(openai, { onNone: () => missing("openai"), onSome: (run) => run(target.model, call) })
        case "local":
          return generateLocal(local, target, call)
      }
    }
    return { generate }
  })
)
