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
import type { ModelCall, ModelReply } from "./ModelClients.js"
import { withTransientRetries } from "./Retry.js"

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

export type HostedGenerate = (model: string, call: ModelCall) => Effect.Effect<ModelReply, AnalyzerError>

export const makeAnthropic = (
  apiKey: Redacted.Redacted<string>,
  apiUrl: string
): Effect.Effect<HostedGenerate, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.map(AnthropicClient.make({ apiKey, apiUrl, transformClient: withTransientRetries }), (client) => (model, call) =>
    generateWith(
      "anthropic",
      AnthropicLanguageModel.make({ model, config: { max_tokens: call.maxOutputTokens } }).pipe(
        Effect.provideService(AnthropicClient.AnthropicClient, client)
      ),
      call
    ))

export const makeOpenAi = (
  apiKey: Redacted.Redacted<string>,
  apiUrl: string
): Effect.Effect<HostedGenerate, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.map(OpenAiClient.make({ apiKey, apiUrl, transformClient: withTransientRetries }), (client) => (model, call) =>
    generateWith(
      "openai",
      OpenAiLanguageModel.make({ model, config: { max_output_tokens: call.maxOutputTokens } }).pipe(
        Effect.provideService(OpenAiClient.OpenAiClient, client)
      ),
      call
    ))
