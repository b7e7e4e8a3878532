/**
 * One structured-output call to a model and its reply, as every provider client takes and gives
 * them (ModelClients.ts, one wire format per provider).
 */
import type { JsonValue } from "../Catalogue/JsonSchema.js"

export interface ModelMessage {
  readonly role: "user" | "assistant"
  readonly content: string
}

export interface ModelCall {
  /**
   * The static prompt, as blocks, the most widely shared first: the same bytes for every analysis
   * of a pattern's pass, so providers that cache prompt prefixes serve it from their cache (a
   * cache breakpoint after each block where the provider takes them). Never trace content: that
   * goes in `messages`, after the static part.
   */
  readonly system: ReadonlyArray<string>
  readonly messages: ReadonlyArray<ModelMessage>
  /** Name of the structured object (tool / json_schema name). */
  readonly objectName: string
  readonly jsonSchema: { readonly [key: string]: JsonValue }
  readonly maxOutputTokens: number
  /** Stable per pattern and mode: routes calls with the same prefix to the same cache (OpenAI `prompt_cache_key`). */
  readonly cacheKey: string
  /**
   * The absolute time (ms, on `Clock`) by which the analysis making the call must end: the call's
   * retries stop short of it (Retry.ts).
   */
  readonly deadline: number
}

export interface ModelReply {
  /** The parsed JSON object the model returned (not yet validated). */
  readonly value: unknown
  /** All input tokens of the call, cached ones included. */
  readonly inputTokens: number
  readonly outputTokens: number
  /** Input tokens the provider read from its prompt cache (0 where it says nothing). */
  readonly cachedInputTokens: number
  /** Input tokens the provider wrote to its prompt cache (Anthropic bills them apart; 0 elsewhere). */
  readonly cacheWriteTokens: number
  /** The model that answered, as the provider names it (null when it does not say). */
  readonly responseModel: string | null
  /** The provider's id of the answer (null when it does not say). */
  readonly responseId: string | null
  /** Why the model stopped, in the provider's words (`end_turn`, `stop`, `length`, `completed`), null when it does not say. */
  readonly finishReason: string | null
}
