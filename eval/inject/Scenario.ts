/**
 * What an injector writes into a carrier fixture (issue 48, DECISIONS §23 "Measured, not
 * asserted"): a format-free description of the failure (tool calls and their results, handoffs,
 * how the run ends), which each format's kit (Kits/*.ts) writes with that format's real fields.
 * The labels are located in the normalized trace afterwards (Locate.ts), by the ids and texts the
 * injection made up, so an item's `source` is the one the importer writes.
 */

/** The check ids of DECISIONS §23 that the generator injects. */
export const CHECK_IDS = [
  "tool_error_unrecovered",
  "success_claim_after_error",
  "repeated_call_loop",
  "unanswered_tool_call",
  "unknown_tool",
  "invalid_tool_arguments",
  "truncated_output",
  "empty_final_answer",
  "turn_limit_reached",
  "context_overflow",
  "provider_error",
  "handoff_unanswered",
  "handoff_ping_pong"
] as const
export type CheckId = (typeof CHECK_IDS)[number]

/** A tool as it is declared to the model: its JSON Schema. */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
}

/** One tool call as the model wrote it. */
export interface Call {
  readonly id: string
  readonly tool: string
  /** The arguments as the model wrote them: JSON text, which an injected failure may break. */
  readonly args: string
  /** The arguments as an object, when `args` is a JSON object (formats that carry objects write this). */
  readonly input: Readonly<Record<string, unknown>> | undefined
  /** A text only this call's arguments hold, to find its event again (an id, a path, a query). */
  readonly marker: string
}

/** How a tool failed, as the tool or its framework reports it. */
export interface ToolFailure {
  /** The exception's class or the error's code (`TimeoutError`, `PermissionError`, `not_in_channel`). */
  readonly type: string
  /** The error's message, as the tool raised it. */
  readonly message: string
  /** The HTTP status, when the failure is an HTTP one. */
  readonly status?: number
}

export type Result =
  | { readonly ok: true; readonly content: string }
  | { readonly ok: false; readonly failure: ToolFailure }

/** A failed call of the agent's own model, as the provider answered it. */
export interface ModelFailure {
  readonly status: number
  /** The provider's error type (`rate_limit_error`, `invalid_request_error`, `overloaded_error`). */
  readonly type: string
  /** OpenAI's error code (`rate_limit_exceeded`, `context_length_exceeded`), null when none. */
  readonly code: string | null
  /** The SDK's exception class (`RateLimitError`, `BadRequestError`, `InternalServerError`). */
  readonly exception: string
  readonly message: string
  /** The provider that answered: each writes its own error body. */
  readonly provider: "openai" | "anthropic"
}

export type Step =
  | {
    readonly kind: "calls"
    /** What the model said with its calls (null: nothing). */
    readonly text: string | null
    readonly calls: ReadonlyArray<Call>
    /** The results, by call; undefined: no result ever came. */
    readonly results: ReadonlyArray<Result | undefined>
  }
  | {
    readonly kind: "handoff"
    readonly from: string
    readonly to: string
    /** What the receiving agent said once it had the conversation; undefined: nothing. */
    readonly reply: string | undefined
  }

export type Ending =
  /** The carrier's own final answer. */
  | { readonly kind: "keep" }
  | { readonly kind: "answer"; readonly text: string; readonly finish: "stop" | "length" }
  /** The final model call answered nothing. */
  | { readonly kind: "empty" }
  /** The final model call failed. */
  | { readonly kind: "model_error"; readonly failure: ModelFailure }
  /** The framework stopped the run at its turn or step limit. */
  | { readonly kind: "turn_limit"; readonly limit: number }
  /** The run stops after the last step: nothing more was recorded. */
  | { readonly kind: "stop" }

export interface Injection {
  /** Tools the run offered the model (the ones the steps call, unless a step calls an undeclared one on purpose). */
  readonly declare: ReadonlyArray<ToolSpec>
  /** Where the steps go among the carrier's turns: 0 right after the task, 1 just before the final answer. */
  readonly at: number
  readonly steps: ReadonlyArray<Step>
  readonly ending: Ending
}
