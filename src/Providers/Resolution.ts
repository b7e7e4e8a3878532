/**
 * Which provider and model a request uses (DECISIONS §4): a `provider:model` prefix selects the
 * provider; otherwise SVC_LLM_PROVIDER forces one; otherwise the first configured of A
 * (Anthropic), B (OpenAI), local. The requested model is the model called; without one,
 * SVC_MODEL, then the provider's default.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { AppConfigShape, ProviderName } from "../Config.js"
import { LlmResolutionError } from "../Errors.js"

export const DEFAULT_MODELS: Record<ProviderName, string> = {
  anthropic: "claude-sonnet-4-6",
  openai: "gpt-4o",
  local: "llama3.1:8b"
}

export const PROVIDER_VARIABLES: Record<ProviderName, string> = {
  anthropic: "ANTHROPIC_API_KEY (or PROVIDER_A_API_KEY)",
  openai: "OPENAI_API_KEY (or PROVIDER_B_API_KEY)",
  local: "LOCAL_MODEL_HOST (or OLLAMA_HOST)"
}

export const DEFAULT_BASE_URLS: Record<Exclude<ProviderName, "local">, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1"
}

export type ResolvedProvider =
  | { readonly provider: "anthropic"; readonly model: string; readonly apiKey: Redacted.Redacted<string>; readonly baseUrl: string }
  | { readonly provider: "openai"; readonly model: string; readonly apiKey: Redacted.Redacted<string>; readonly baseUrl: string }
  | { readonly provider: "local"; readonly model: string; readonly baseUrl: string }

const PREFIX = /^(anthropic|openai|local):(.+)$/

const configured = (providers: AppConfigShape["providers"], name: ProviderName, model: string): ResolvedProvider | undefined => {
  switch (name) {
    case "anthropic":
      return Option.match(providers.anthropicKey, {
        onNone: () => undefined,
        onSome: (apiKey) => ({
          provider: "anthropic",
          model,
          apiKey,
          baseUrl: Option.getOrElse(providers.anthropicBaseUrl, () => DEFAULT_BASE_URLS.anthropic)
        })
      })
    case "openai":
      return Option.match(providers.openaiKey, {
        onNone: () => undefined,
        onSome: (apiKey) => ({
          provider: "openai",
          model,
          apiKey,
          baseUrl: Option.getOrElse(providers.openaiBaseUrl, () => DEFAULT_BASE_URLS.openai)
        })
      })
    case "local":
      return Option.match(providers.localHost, {
        onNone: () => undefined,
        onSome: (baseUrl) => ({ provider: "local", model, baseUrl })
      })
  }
}

export const resolveProvider = (
  providers: AppConfigShape["providers"],
  requestedModel: string | null
): Either.Either<ResolvedProvider, LlmResolutionError> => {
  const prefixed = requestedModel === null ? null : PREFIX.exec(requestedModel)
  const explicit: ProviderName | undefined = prefixed?.[1] === "anthropic" || prefixed?.[1] === "openai" || prefixed?.[1] === "local"
    ? prefixed[1]
    : Option.getOrUndefined(providers.forced)
  const requested = prefixed?.[2] ?? requestedModel
  const modelFor = (name: ProviderName) => requested ?? Option.getOrElse(providers.defaultModel, () => DEFAULT_MODELS[name])

  if (explicit !== undefined) {
    const resolved = configured(providers, explicit, modelFor(explicit))
    return resolved === undefined
      ? Either.left(
        new LlmResolutionError({
          message: `provider ${explicit} was selected${prefixed ? " by the model prefix" : " by SVC_LLM_PROVIDER"} but ${PROVIDER_VARIABLES[explicit]} is not set`
        })
      )
      : Either.right(resolved)
  }
  for (const name of ["anthropic", "openai", "local"] as const) {
    const resolved = configured(providers, name, modelFor(name))
    if (resolved !== undefined) return Either.right(resolved)
  }
  return Either.left(
    new LlmResolutionError({
      message: `no model provider is configured: set ${PROVIDER_VARIABLES.anthropic}, ${PROVIDER_VARIABLES.openai}, or ${PROVIDER_VARIABLES.local}`
    })
  )
}
