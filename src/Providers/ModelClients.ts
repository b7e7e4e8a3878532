/**
 * Structured-output calls to the three kinds of model host (DECISIONS §4), each on its own wire
 * format, written here over the platform's HttpClient:
 * - hosted provider A: Anthropic Messages (`POST /v1/messages`), a forced tool call whose input
 *   schema is the output schema; the static system blocks carry `cache_control` breakpoints;
 * - hosted provider B: OpenAI Responses (`POST /responses`), a strict `json_schema` text format,
 *   with a `prompt_cache_key` per pattern and mode;
 * - the local model host: the OpenAI-compatible Chat Completions API with a `json_schema`
 *   response format (Ollama, llama.cpp server, vLLM, LM Studio).
 * Each request is one fixed shape, so it is built as a plain object and each answer is read with a
 * small schema of the fields used. (Until issue 18 the hosted calls went through @effect/ai's
 * LanguageModel: its prompt model and the providers' generated request and response schemas cost
 * about 0.9 ms of CPU per call, 40% of a quick analysis; docs/performance.md.)
 * All three share the retries, the deadline and the refusal of oversized answers (Retry.ts). Every
 * failure becomes an AnalyzerError whose message names the provider and what failed, never a key.
 */
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Context, Effect, Either, Layer, Redacted, Schema } from "effect"
import { AnalyzerError } from "../Errors.js"
import type { ModelCall, ModelReply } from "./ModelCall.js"
import type { ResolvedProvider } from "./Resolution.js"
import { isTransientStatus, withTransientRetries } from "./Retry.js"

export interface ModelClientsShape {
  readonly generate: (target: ResolvedProvider, call: ModelCall) => Effect.Effect<ModelReply, AnalyzerError>
}

export class ModelClients extends Context.Tag("ModelClients")<ModelClients, ModelClientsShape>() {}

const ANTHROPIC_VERSION = "2023-06-01"

// ---------------------------------------------------------------------------------------------
// What is read of each answer

const Count = Schema.optional(Schema.NullOr(Schema.Number))

const AnthropicMessage = Schema.Struct({
  content: Schema.Array(Schema.Struct({ type: Schema.String, name: Schema.optional(Schema.String), input: Schema.optional(Schema.Unknown) })),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
  usage: Schema.Struct({
    input_tokens: Schema.Number,
    output_tokens: Schema.Number,
    cache_creation_input_tokens: Count,
    cache_read_input_tokens: Count
  })
})

const OpenAiResponse = Schema.Struct({
  object: Schema.Literal("response"),
  status: Schema.optional(Schema.NullOr(Schema.String)),
  output: Schema.Array(
    Schema.Struct({
      type: Schema.String,
      content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String), refusal: Schema.optional(Schema.String) })))
    })
  ),
  incomplete_details: Schema.optional(Schema.NullOr(Schema.Struct({ reason: Schema.optional(Schema.String) }))),
  usage: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        input_tokens: Schema.Number,
        output_tokens: Schema.Number,
        input_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: Count })))
      })
    )
  )
})

const ChatCompletion = Schema.Struct({
  choices: Schema.NonEmptyArray(
    Schema.Struct({ message: Schema.Struct({ content: Schema.NullOr(Schema.String) }), finish_reason: Schema.optional(Schema.NullOr(Schema.String)) })
  ),
  usage: Schema.optional(
    Schema.Struct({
      prompt_tokens: Schema.optional(Schema.Number),
      completion_tokens: Schema.optional(Schema.Number),
      // vLLM and other servers with prefix caching say how much of the prompt they reused.
      prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: Count })))
    })
  )
})

const decodeAnthropic = Schema.decodeUnknownEither(AnthropicMessage)
const decodeOpenAi = Schema.decodeUnknownEither(OpenAiResponse)
const decodeChat = Schema.decodeUnknownEither(ChatCompletion)

// ---------------------------------------------------------------------------------------------
// One request, whatever the wire

interface Wire {
  /** "provider anthropic", "local model host": how messages name it. */
  readonly label: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  /** The reply from the answer's JSON, or what was wrong with it. */
  readonly read: (json: unknown) => Either.Either<ModelReply, string>
}

const failure = (label: string, reason: string) => new AnalyzerError({ message: `${label} ${reason}` })

const describeHttpError = (label: string, error: HttpClientError.HttpClientError): AnalyzerError => {
  if (error._tag === "RequestError") return failure(label, `could not be reached (${error.reason}) after retrying within the deadline`)
  if (error.reason === "StatusCode") return failure(label, `answered HTTP ${error.response.status}`)
  return failure(label, `sent a response that could not be read (${error.reason})`)
}

const send = (client: HttpClient.HttpClient, wire: Wire): Effect.Effect<ModelReply, AnalyzerError> =>
  Effect.gen(function*() {
    const request = HttpClientRequest.post(wire.url).pipe(
      HttpClientRequest.setHeaders(wire.headers),
      HttpClientRequest.setBody(HttpBody.unsafeJson(wire.body))
    )
    const response = yield* client.execute(request).pipe(Effect.mapError((error) => describeHttpError(wire.label, error)))
    if (response.status < 200 || response.status >= 300) {
      // Read what it sent, so the connection can be reused.
      yield* Effect.ignore(response.text)
      return yield* failure(
        wire.label,
        `answered HTTP ${response.status}${isTransientStatus(response.status) ? " after retrying within the deadline" : ""}`
      )
    }
    const json = yield* response.json.pipe(Effect.mapError(() => failure(wire.label, "sent a response body that is not JSON")))
    return yield* Either.match(wire.read(json), {
      onLeft: (reason) => Effect.fail(failure(wire.label, reason)),
      onRight: Effect.succeed
    })
  })

const parseJson = (text: string, cut: boolean): Either.Either<unknown, string> => {
  try {
    const value: unknown = JSON.parse(text)
    return Either.right(value)
  } catch {
    return Either.left(`returned content that is not JSON${cut ? " (cut at the token limit)" : ""}`)
  }
}

const count = (value: number | null | undefined): number => value ?? 0

// ---------------------------------------------------------------------------------------------
// The three wires

/**
 * Anthropic Messages: the output schema as the input schema of a forced tool; each static system
 * block ends a cacheable prefix (`cache_control`). Anthropic's `input_tokens` counts only what
 * follows the last breakpoint: the input is that plus the cache reads and writes.
 */
const anthropicWire = (target: Extract<ResolvedProvider, { provider: "anthropic" }>, call: ModelCall): Wire => ({
  label: "provider anthropic",
  url: `${target.baseUrl.replace(/\/+$/, "")}/v1/messages`,
  headers: { "x-api-key": Redacted.value(target.apiKey), "anthropic-version": ANTHROPIC_VERSION },
  body: {
    model: target.model,
    max_tokens: call.maxOutputTokens,
    system: call.system.map((text) => ({ type: "text", text, cache_control: { type: "ephemeral" } })),
    messages: call.messages.map((message) => ({ role: message.role, content: [{ type: "text", text: message.content }] })),
    tools: [{ name: call.objectName, description: "Respond with a JSON object", input_schema: call.jsonSchema }],
    tool_choice: { type: "tool", name: call.objectName, disable_parallel_tool_use: true }
  },
  read: (json) =>
    Either.flatMap(
      Either.mapLeft(decodeAnthropic(json), () => "sent a response that is not a Messages response"),
      (message): Either.Either<ModelReply, string> => {
        const tool = message.content.find((block) => block.type === "tool_use" && block.name === call.objectName)
        if (tool === undefined || typeof tool.input !== "object" || tool.input === null) {
          return Either.left(`returned output that is not the requested JSON object${message.stop_reason === "max_tokens" ? " (cut at the token limit)" : ""}`)
        }
        const read = count(message.usage.cache_read_input_tokens)
        const written = count(message.usage.cache_creation_input_tokens)
        return Either.right({
          value: tool.input,
          inputTokens: message.usage.input_tokens + read + written,
          outputTokens: message.usage.output_tokens,
          cachedInputTokens: read,
          cacheWriteTokens: written
        })
      }
    )
})

/**
 * OpenAI Responses: a strict `json_schema` text format; the static system blocks first, and a
 * `prompt_cache_key` that routes the calls of one pattern and mode to the same prefix cache.
 * `input_tokens` includes the cached ones.
 */
const openAiWire = (target: Extract<ResolvedProvider, { provider: "openai" }>, call: ModelCall): Wire => ({
  label: "provider openai",
  url: `${target.baseUrl.replace(/\/+$/, "")}/responses`,
  headers: { authorization: `Bearer ${Redacted.value(target.apiKey)}` },
  body: {
    model: target.model,
    input: [
      ...call.system.map((content) => ({ role: "system", content })),
      ...call.messages.map((message) => ({ role: message.role, content: message.content }))
    ],
    text: { format: { type: "json_schema", name: call.objectName, schema: call.jsonSchema, strict: true } },
    max_output_tokens: call.maxOutputTokens,
    prompt_cache_key: call.cacheKey,
    store: false
  },
  read: (json) =>
    Either.flatMap(
      Either.mapLeft(decodeOpenAi(json), () => "sent a response that is not a Responses object"),
      (response): Either.Either<ModelReply, string> => {
        const parts = response.output.flatMap((item) => (item.type === "message" ? item.content ?? [] : []))
        const refusal = parts.find((part) => part.type === "refusal")
        if (refusal !== undefined) return Either.left(`refused to answer: ${(refusal.refusal ?? "").slice(0, 200)}`)
        const text = parts.filter((part) => part.type === "output_text").map((part) => part.text ?? "").join("")
        const cut = response.status === "incomplete" && response.incomplete_details?.reason === "max_output_tokens"
        if (text.length === 0) return Either.left(`returned output that is not the requested JSON object${cut ? " (cut at the token limit)" : ""}`)
        return Either.map(parseJson(text, cut), (value) => ({
          value,
          inputTokens: response.usage?.input_tokens ?? 0,
          outputTokens: response.usage?.output_tokens ?? 0,
          cachedInputTokens: count(response.usage?.input_tokens_details?.cached_tokens),
          cacheWriteTokens: 0
        }))
      }
    )
})

const chatCompletionsUrl = (host: string) => (/\/v1$/.test(host) ? `${host}/chat/completions` : `${host}/v1/chat/completions`)

/**
 * Chat Completions (local hosts): the static blocks as one system message, the same bytes for every
 * analysis of the pass, which llama.cpp's server and Ollama keep evaluated and reuse.
 */
const localWire = (target: Extract<ResolvedProvider, { provider: "local" }>, call: ModelCall): Wire => ({
  label: "local model host",
  url: chatCompletionsUrl(target.baseUrl),
  headers: {},
  body: {
    model: target.model,
    messages: [{ role: "system", content: call.system.join("\n\n") }, ...call.messages],
    response_format: { type: "json_schema", json_schema: { name: call.objectName, schema: call.jsonSchema, strict: true } },
    temperature: 0.2,
    max_tokens: call.maxOutputTokens,
    stream: false
  },
  read: (json) =>
    Either.flatMap(
      Either.mapLeft(decodeChat(json), () => "sent a response that is not a Chat Completions response"),
      (completion): Either.Either<ModelReply, string> => {
        const choice = completion.choices[0]
        return Either.map(parseJson(choice.message.content ?? "", choice.finish_reason === "length"), (value) => ({
          value,
          inputTokens: completion.usage?.prompt_tokens ?? 0,
          outputTokens: completion.usage?.completion_tokens ?? 0,
          cachedInputTokens: count(completion.usage?.prompt_tokens_details?.cached_tokens),
          cacheWriteTokens: 0
        }))
      }
    )
})

export const ModelClientsLive: Layer.Layer<ModelClients, never, HttpClient.HttpClient> = Layer.effect(
  ModelClients,
  Effect.map(HttpClient.HttpClient, (http) => {
    // No span per provider call: the service exports no traces, and each span costs the call's
    // fiber a scope and its frames for as long as the provider takes (docs/performance.md).
    const client = withTransientRetries(HttpClient.withTracerDisabledWhen(http, () => true))
    const generate = (target: ResolvedProvider, call: ModelCall): Effect.Effect<ModelReply, AnalyzerError> => {
      switch (target.provider) {
        case "anthropic":
          return send(client, anthropicWire(target, call))
        case "openai":
          return send(client, openAiWire(target, call))
        case "local":
          return send(client, localWire(target, call))
      }
    }
    return { generate }
  })
)
