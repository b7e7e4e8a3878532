/**
 * One structured-output call to a model and its reply, as every provider client takes and gives
 * them (ModelClients.ts for the local host, HostedClients.ts for the hosted SDKs).
 */
import type { JsonValue } from "./JsonSchema.js"

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
