/**
 * Structured-output calls to the three kinds of model host (DECISIONS §4), each on its own wire
 * format, written here over node:http(s) (Exchange.ts):
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
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { AnalyzerError } from "../Errors.js"
import { type Agents, exchange, type ExchangeFailure, makeAgents } from "./Exchange.js"
import type { ModelCall, ModelReply } from "./ModelCall.js"
import type { ResolvedProvider } from "./Resolution.js"
import { isTransientStatus, MAX_RESPONSE_BYTES } from "./Retry.js"

export interface ModelClientsShape {
  readonly generate: (target: ResolvedProvider, call: ModelCall) => Effect.Effect<ModelReply, AnalyzerError>
}

export class ModelClients extends Context.Tag("ModelClients")<ModelClients, ModelClientsShape>() {}

const ANTHROPIC_VERSION = "2023-06-01"

// ---------------------------------------------------------------------------------------------
// What is read of each answer

const Count = Schema.optional(Schema.NullOr(Schema.Number))

const Named = Schema.optional(Schema.NullOr(Schema.String))

const AnthropicMessage = Schema.Struct({
  id: Named,
  model: Named,
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
  id: Named,
  model: Named,
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
  id: Named,
  model: Named,
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

/**
 * A request body as a static part and the call's own: `fixed` (every field but one list) and the
 * list `list`, whose first items `staticItems` are the same for every call of the pass and whose
 * last items `items` carry the trace. The JSON of all but `items` is made once per pass and model
 * (`prefixOf`) and sent from one shared buffer; each call serializes and holds only its items.
 */
interface WireBody {
  readonly fixed: Readonly<Record<string, unknown>>
  readonly list: string
  readonly staticItems: ReadonlyArray<unknown>
  readonly items: ReadonlyArray<unknown>
}

interface Wire {
  /** "provider anthropic", "local model host": how messages name it. */
  readonly label: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: WireBody
  /** The reply from the answer's JSON, or what was wrong with it. */
  readonly read: (json: unknown) => Either.Either<ModelReply, string>
}

/** Static prefixes kept per system prompt and schema (both made once per pattern pass), by wire and model. */
const prefixes = new WeakMap<object, WeakMap<object, Map<string, Buffer>>>()
/** Distinct wires and models kept per pass; more are serialized per call, never kept. */
const PREFIXES_PER_PASS = 16

const prefixJson = (body: WireBody) => {
  const fixed = JSON.stringify(body.fixed)
  const items = body.staticItems.map((item) => JSON.stringify(item)).join(",")
  return `${fixed.length > 2 ? `${fixed.slice(0, -1)},` : "{"}${JSON.stringify(body.list)}:[${items}`
}

const prefixOf = (call: ModelCall, key: string, body: WireBody): Buffer => {
  let bySchema = prefixes.get(call.system)
  if (bySchema === undefined) prefixes.set(call.system, bySchema = new WeakMap())
  let byKey = bySchema.get(call.jsonSchema)
  if (byKey === undefined) bySchema.set(call.jsonSchema, byKey = new Map())
  const known = byKey.get(key)
  if (known !== undefined) return known
  const made = Buffer.from(prefixJson(body))
  if (byKey.size < PREFIXES_PER_PASS) byKey.set(key, made)
  return made
}

/** The body's two buffers: the shared static prefix and this call's items. */
const bodyOf = (call: ModelCall, { body, url }: Wire): ReadonlyArray<Buffer> => {
  // What `fixed` takes from outside the system prompt and schema.
  const key = `${url}\n${String(body.fixed["model"])}\n${call.maxOutputTokens}\n${call.objectName}\n${call.cacheKey}`
  const items = body.items.map((item) => JSON.stringify(item)).join(",")
  const separator = body.staticItems.length > 0 && body.items.length > 0 ? "," : ""
  return [prefixOf(call, key, body), Buffer.from(`${separator}${items}]}`)]
}

const failure = (label: string, reason: string, retryable = false) => new AnalyzerError({ message: `${label} ${reason}`, retryable })

const describeFailure = (label: string, failed: ExchangeFailure): AnalyzerError =>
  failed._tag === "Unreachable"
    ? failure(label, `could not be reached (${failed.code}) after retrying within the deadline`, true)
    : failure(label, `sent a response that could not be read (${failed.bytes} bytes, more than ${MAX_RESPONSE_BYTES})`)

/** JSON.parse as an Either: the answer's body and the model's text content alike. */
const jsonOf = (text: string): Either.Either<unknown, undefined> => {
  try {
    const value: unknown = JSON.parse(text)
    return Either.right(value)
  } catch {
    return Either.left(undefined)
  }
}

const send = (agents: Agents, call: ModelCall, wire: Wire): Effect.Effect<ModelReply, AnalyzerError> =>
  exchange(agents, wire.url, wire.headers, bodyOf(call, wire), call.deadline).pipe(
    Effect.mapError((failed) => describeFailure(wire.label, failed)),
    Effect.flatMap((answer) => {
      if (answer.status < 200 || answer.status >= 300) {
        return Effect.fail(failure(
          wire.label,
          `answered HTTP ${answer.status}${isTransientStatus(answer.status) ? " after retrying within the deadline" : ""}`,
          isTransientStatus(answer.status)
        ))
      }
      return Either.match(jsonOf(answer.body.toString("utf8")), {
        onLeft: () => Effect.fail(failure(wire.label, "sent a response body that is not JSON")),
        onRight: (json) =>
          Either.match(wire.read(json), {
            onLeft: (reason) => Effect.fail(failure(wire.label, reason)),
            onRight: Effect.succeed
          })
      })
    })
  )

/** The model's text content as JSON, or why not. */
const parseJson = (text: string, cut: boolean): Either.Either<unknown, string> =>
  Either.mapLeft(jsonOf(text), () => `returned content that is not JSON${cut ? " (cut at the token limit)" : ""}`)

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
    fixed: {
      model: target.model,
      max_tokens: call.maxOutputTokens,
      system: call.system.map((text) => ({ type: "text", text, cache_control: { type: "ephemeral" } })),
      tools: [{ name: call.objectName, description: "Respond with a JSON object", input_schema: call.jsonSchema }],
      tool_choice: { type: "tool", name: call.objectName, disable_parallel_tool_use: true }
    },
    list: "messages",
    staticItems: [],
    items: call.messages.map((message) => ({ role: message.role, content: [{ type: "text", text: message.content }] }))
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
          cacheWriteTokens: written,
          responseModel: message.model ?? null,
          responseId: message.id ?? null,
          finishReason: message.stop_reason ?? null
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
    fixed: {
      model: target.model,
      text: { format: { type: "json_schema", name: call.objectName, schema: call.jsonSchema, strict: true } },
      max_output_tokens: call.maxOutputTokens,
      prompt_cache_key: call.cacheKey,
      store: false
    },
    list: "input",
    staticItems: call.system.map((content) => ({ role: "system", content })),
    items: call.messages.map((message) => ({ role: message.role, content: message.content }))
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
          cacheWriteTokens: 0,
          responseModel: response.model ?? null,
          responseId: response.id ?? null,
          // Responses has no finish reason: its status, or why it is incomplete
          finishReason: response.incomplete_details?.reason ?? response.status ?? null
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
    fixed: {
      model: target.model,
      response_format: { type: "json_schema", json_schema: { name: call.objectName, schema: call.jsonSchema, strict: true } },
      temperature: 0.2,
      max_tokens: call.maxOutputTokens,
      stream: false
    },
    list: "messages",
    staticItems: [{ role: "system", content: call.system.join("\n\n") }],
    items: call.messages
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
          cacheWriteTokens: 0,
          responseModel: completion.model ?? null,
          responseId: completion.id ?? null,
          finishReason: choice.finish_reason ?? null
        }))
      }
    )
})

export const ModelClientsLive: Layer.Layer<ModelClients> = Layer.scoped(
  ModelClients,
  Effect.map(Effect.acquireRelease(Effect.sync(makeAgents), (agents) => Effect.sync(agents.close)), (agents) => {
    const generate = (target: ResolvedProvider, call: ModelCall): Effect.Effect<ModelReply, AnalyzerError> => {
      switch (target.provider) {
        case "anthropic":
          return send(agents, call, anthropicWire(target, call))
        case "openai":
          return send(agents, call, openAiWire(target, call))
        case "local":
          return send(agents, call, localWire(target, call))
      }
    }
    return { generate }
  })
)
