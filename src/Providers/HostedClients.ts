/**
 * Hosted providers through @effect/ai: Anthropic (Messages API, forced tool call) and OpenAI
 * (Responses API, strict json_schema format). This module is imported dynamically, only when a
 * hosted provider is configured: the SDKs define thousands of schemas at load time, which would
 * otherwise cost every instance start-up time and memory.
 */
import { type AiError, type LanguageModel, Prompt } from "@effect/ai"
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import { Effect, type Redacted, Schema, type Scope } from "effect"
import { AnalyzerError } from "../Errors.js"
import type { JsonValue } from "./JsonSchema.js"
import type { ModelCall, ModelReply } from "./ModelCall.js"
import { withTransientRetries } from "./Retry.js"

type JsonSchemaObject = { readonly [key: string]: JsonValue }
type PassThrough = Schema.Record$<typeof Schema.String, typeof Schema.Unknown>
const passThroughs = new WeakMap<JsonSchemaObject, PassThrough>()
/**
 * A schema that passes any object through while showing the provider the given JSON Schema; one
 * per JSON Schema (they are made once per pattern and pass), not one per call.
 */
const passThrough = (jsonSchema: JsonSchemaObject): PassThrough => {
  let schema = passThroughs.get(jsonSchema)
  if (schema === undefined) {
    schema = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ jsonSchema })
    passThroughs.set(jsonSchema, schema)
  }
  return schema
}

/**
 * The LanguageModel service of one model and output budget, built once and reused: building it
 * per call costs CPU and keeps a service's worth of closures alive per request in flight.
 */
const MAX_MEMO_MODELS = 64
const memoModels = <E, R>(build: (model: string, maxOutputTokens: number) => Effect.Effect<LanguageModel.Service, E, R>) => {
  const built = new Map<string, LanguageModel.Service>()
  return (model: string, maxOutputTokens: number): Effect.Effect<LanguageModel.Service, E, R> => {
    const key = `${maxOutputTokens} ${model}`
    const known = built.get(key)
    if (known !== undefined) return Effect.succeed(known)
    // Model names come from requests: past a few dozen, build per call rather than grow.
    return Effect.tap(build(model, maxOutputTokens), (service) => {
      if (built.size < MAX_MEMO_MODELS) built.set(key, service)
    })
  }
}

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

/**
 * The prompt: the static system blocks first (each a cache breakpoint for Anthropic, where
 * `cacheBreakpoints` is set; OpenAI caches prefixes by itself), then the messages.
 */
const prompt = (call: ModelCall, cacheBreakpoints: boolean) =>
  Prompt.make([
    ...call.system.map((content) =>
      cacheBreakpoints
        ? { role: "system" as const, content, options: { anthropic: { cacheControl: { type: "ephemeral" as const } } } }
        : { role: "system" as const, content }
    ),
    ...call.messages.map((message) =>
      message.role === "user"
        ? { role: "user" as const, content: message.content }
        : { role: "assistant" as const, content: [{ type: "text" as const, text: message.content }] }
    )
  ])

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0)
const field = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? Reflect.get(at, key) : undefined), value)

/** The provider's own usage record, from the response's finish part (`metadata.<provider>.usage`). */
const providerUsage = (content: ReadonlyArray<unknown>, provider: string): unknown => {
  const finish = content.find((part) => field(part, "type") === "finish")
  return field(finish, "metadata", provider, "usage")
}

interface Usage {
  readonly inputTokens: number
  readonly cachedInputTokens: number
  readonly cacheWriteTokens: number
}

/**
 * Anthropic's `input_tokens` counts only what follows the last cache breakpoint; the prefix read
 * from the cache and the prefix written to it are counted apart. The input is their sum.
 */
const anthropicUsage = (content: ReadonlyArray<unknown>, reported: number): Usage => {
  const usage = providerUsage(content, "anthropic")
  const read = count(field(usage, "cache_read_input_tokens"))
  const written = count(field(usage, "cache_creation_input_tokens"))
  return { inputTokens: reported + read + written, cachedInputTokens: read, cacheWriteTokens: written }
}

/** OpenAI's `input_tokens` includes the cached ones (`input_tokens_details.cached_tokens`). */
const openAiUsage = (reported: number, cached: number | undefined): Usage => ({ inputTokens: reported, cachedInputTokens: cached ?? 0, cacheWriteTokens: 0 })

const generateWith = (
  provider: "anthropic" | "openai",
  model: Effect.Effect<LanguageModel.Service>,
  call: ModelCall
): Effect.Effect<ModelReply, AnalyzerError> =>
  Effect.flatMap(model, (languageModel) =>
    languageModel.generateObject({
      prompt: prompt(call, provider === "anthropic"),
      schema: passThrough(call.jsonSchema),
      objectName: call.objectName
    })).pipe(
      // Calls of one pattern and mode share their prefix: OpenAI routes them to the same cache.
      (effect) => (provider === "openai" ? OpenAiLanguageModel.withConfigOverride(effect, { prompt_cache_key: call.cacheKey }) : effect),
      Effect.map((response): ModelReply => {
        const reported = response.usage.inputTokens ?? 0
        const usage = provider === "anthropic"
          ? anthropicUsage(response.content, reported)
          : openAiUsage(reported, response.usage.cachedInputTokens)
        return { value: response.value, outputTokens: response.usage.outputTokens ?? 0, ...usage }
      }),
      Effect.catchAll((error) => Effect.fail(new AnalyzerError({ message: describeAiError(provider, error) })))
    )

export type HostedGenerate = (model: string, call: ModelCall) => Effect.Effect<ModelReply, AnalyzerError>

export const makeAnthropic = (
  apiKey: Redacted.Redacted<string>,
  apiUrl: string
): Effect.Effect<HostedGenerate, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.map(AnthropicClient.make({ apiKey, apiUrl, transformClient: withTransientRetries }), (client) => {
    const models = memoModels((model, maxTokens) =>
      AnthropicLanguageModel.make({ model, config: { max_tokens: maxTokens } }).pipe(
        Effect.provideService(AnthropicClient.AnthropicClient, client)
      )
    )
    return (model, call) => generateWith("anthropic", models(model, call.maxOutputTokens), call)
  })

export const makeOpenAi = (
  apiKey: Redacted.Redacted<string>,
  apiUrl: string
): Effect.Effect<HostedGenerate, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.map(OpenAiClient.make({ apiKey, apiUrl, transformClient: withTransientRetries }), (client) => {
    const models = memoModels((model, maxTokens) =>
      OpenAiLanguageModel.make({ model, config: { max_output_tokens: maxTokens } }).pipe(
        Effect.provideService(OpenAiClient.OpenAiClient, client)
      )
    )
    return (model, call) => generateWith("openai", models(model, call.maxOutputTokens), call)
  })
