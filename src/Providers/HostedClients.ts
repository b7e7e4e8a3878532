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
