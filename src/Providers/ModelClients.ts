/**
 * Structured-output calls to the three kinds of model host (DECISIONS §4):
 * - hosted provider A through `@effect/ai-anthropic` (Messages API, forced tool call);
 * - hosted provider B through `@effect/ai-openai` (Responses API, strict json_schema format);
 * - the local model host through the OpenAI-compatible Chat Completions API with a
 *   `json_schema` response format (Ollama, llama.cpp server, vLLM, LM Studio).
 * Clients are built once at start-up for the configured providers and outlive requests. Every
 * failure becomes an AnalyzerError whose message names the provider and what failed, never a key.
 */
import { AiError, LanguageModel, Prompt } from "@effect/ai"
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import { HttpBody, HttpClient, HttpClientRequest } from "@effect/platform"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { AppConfig } from "../Config.js"
import { AnalyzerError } from "../Errors.js"
import type { JsonValue } from "./JsonSchema.js"
import { DEFAULT_BASE_URLS, type ResolvedProvider } from "./Resolution.js"
import { withTransientRetries } from "./Retry.js"

export interface ModelMessage {
  readonly role: "user" | "assistant"
  readonly content: string
}

export interface ModelCall {
  readonly system: string
  readonly messages: ReadonlyArray<ModelMessage>
  /** Name of the structured object (tool / json_schema name). */
  readonly objectName: string
  readonly jsonSchema: { readonly [key: string]: JsonValue }
  readonly maxOutputTokens: number
}

export interface ModelReply {
  /** The parsed JSON object the model returned (not yet validated). */
  readonly value: unknown
  readonly inputTokens: number
  readonly outputTokens: number
}

export interface ModelClientsShape {
  readonly generate: (target: ResolvedProvider, call: ModelCall) => Effect.Effect<ModelReply, AnalyzerError>
}

export class ModelClients extends Context.Tag("ModelClients")<ModelClients, ModelClientsShape>() {}

/** A schema that passes any object through while showing the provider the given JSON Schema. */
const passThrough = (jsonSchema: { readonly [key: string]: JsonValue }) =>
  Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ jsonSchema })

const describeAiError = (provider: string, error: AiError.AiError): string => {
  switch (error._tag) {
    case "HttpResponseError":
      return error.reason === "StatusCode"
        ? `provider ${provider} answered HTTP ${error.response.status}${
          error.response.status === 429 || error.response.status >= 500 ? " after retrying within the deadline" : ""
        }`
        : `provider ${provider} sent a response that could not be read (${error.reason})`
    case "HttpRequestError":
      return `provider ${provider} could not be reached (${error.reason}) after retrying within the deadline`
    case "MalformedOutput":
      return `provider ${provider} returned output that is not the requested JSON object`
    case "MalformedInput":
      return `the request to provider ${provider} could not be built`
    case "UnknownError":
      return `provider ${provider} failed: ${error.description ?? "unknown error"}`
  }
}

const prompt = (call: ModelCall) =>
  Prompt.make([
    { role: "system", content: call.system },
    ...call.messages.map((message) =>
      message.role === "user"
        ? { role: "user" as const, content: message.content }
        : { role: "assistant" as const, content: [{ type: "text" as const, text: message.content }] }
    )
  ])

const generateWith = (
  provider: string,
  model: Effect.Effect<LanguageModel.Service>,
  call: ModelCall
): Effect.Effect<ModelReply, AnalyzerError> =>
  Effect.flatMap(model, (languageModel) =>
    languageModel.generateObject({
      prompt: prompt(call),
      schema: passThrough(call.jsonSchema),
      objectName: call.objectName
    })).pipe(
      Effect.map((response): ModelReply => ({
        value: response.value,
        inputTokens: response.usage.inputTokens ?? 0,
        outputTokens: response.usage.outputTokens ?? 0
      })),
      Effect.catchAll((error) => Effect.fail(new AnalyzerError({ message: describeAiError(provider, error) })))
    )

/** Chat Completions wire format (local model hosts). */
const ChatCompletion = Schema.Struct({
  choices: Schema.NonEmptyArray(
    Schema.Struct({ message: Schema.Struct({ content: Schema.NullOr(Schema.String) }), finish_reason: Schema.optional(Schema.NullOr(Schema.String)) })
  ),
  usage: Schema.optional(
    Schema.Struct({ prompt_tokens: Schema.optional(Schema.Number), completion_tokens: Schema.optional(Schema.Number) })
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
      messages: [{ role: "system", content: call.system }, ...call.messages],
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
      outputTokens: completion.usage?.completion_tokens ?? 0
    }
  })

export const ModelClientsLive: Layer.Layer<ModelClients, never, AppConfig | HttpClient.HttpClient> = Layer.scoped(
  ModelClients,
  Effect.gen(function*() {
    const { providers } = yield* AppConfig
    const http = yield* HttpClient.HttpClient
    const anthropic = yield* Effect.transposeOption(Option.map(providers.anthropicKey, (apiKey) =>
      AnthropicClient.make({
        apiKey,
        apiUrl: Option.getOrElse(providers.anthropicBaseUrl, () => DEFAULT_BASE_URLS.anthropic),
        transformClient: withTransientRetries
      })))
    const openai = yield* Effect.transposeOption(Option.map(providers.openaiKey, (apiKey) =>
      OpenAiClient.make({
        apiKey,
        apiUrl: Option.getOrElse(providers.openaiBaseUrl, () => DEFAULT_BASE_URLS.openai),
        transformClient: withTransientRetries
      })))
    const local = withTransientRetries(http)

    const generate = (target: ResolvedProvider, call: ModelCall): Effect.Effect<ModelReply, AnalyzerError> => {
      switch (target.provider) {
        case "anthropic":
          return Option.match(anthropic, {
            onNone: () => Effect.fail(new AnalyzerError({ message: "provider anthropic has no client" })),
            onSome: (client) =>
              generateWith(
                "anthropic",
                AnthropicLanguageModel.make({ model: target.model, config: { max_tokens: call.maxOutputTokens } }).pipe(
                  Effect.provideService(AnthropicClient.AnthropicClient, client)
                ),
                call
              )
          })
        case "openai":
          return Option.match(openai, {
            onNone: () => Effect.fail(new AnalyzerError({ message: "provider openai has no client" })),
            onSome: (client) =>
              generateWith(
                "openai",
                OpenAiLanguageModel.make({ model: target.model, config: { max_output_tokens: call.maxOutputTokens } }).pipe(
                  Effect.provideService(OpenAiClient.OpenAiClient, client)
                ),
                call
              )
          })
        case "local":
          return generateLocal(local, target, call)
      }
    }
    return { generate }
  })
)
