import { Predicate } from "effect"
/**
 * The providers' prompt caches, as the provider double plays them (opt-in:
 * `startProviderDouble({ promptCache: true })`), with tokens counted as characters / 4:
 * - Anthropic Messages: the prompt is tools, then system blocks, then messages; a block with
 *   `cache_control` ends a cacheable prefix. The longest cached prefix at a breakpoint is read
 *   (`cache_read_input_tokens`); the rest up to the last breakpoint is written
 *   (`cache_creation_input_tokens`); `input_tokens` counts what follows. Prefixes under 1,024
 *   tokens are not cached (Anthropic's minimum for its Sonnet models).
 * - OpenAI Responses: automatic prefix caching of prompts of 1,024 tokens or more, in steps of 128
 *   tokens, among the requests with the same `prompt_cache_key`; the prompt is the output schema,
 *   then the input items. `input_tokens` includes `input_tokens_details.cached_tokens`.
 * - Chat Completions (local hosts): no cache reported.
 * Each call's static part (what precedes the trace) is recorded, so a test or the bench can check
 * it is byte-identical across analyses. References: Anthropic's prompt caching guide
 * (docs.anthropic.com, "Prompt caching"), OpenAI's (platform.openai.com, "Prompt caching").
 */

const tokens = (chars: number) => Math.ceil(chars / 4)
const MIN_CACHED = 1024
const OPENAI_STEP = 128

const list = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])
const text = (u: unknown): string =>
  typeof u === "string" ? u : Array.isArray(u) ? u.map(text).join("") : Predicate.isRecord(u) ? (typeof u["text"] === "string" ? u["text"] : text(u["content"])) : ""

export interface CacheUsage {
  /** Every input token (cached ones included). */
  readonly total: number
  readonly read: number
  readonly written: number
}

interface Segment {
  readonly text: string
  readonly breakpoint: boolean
}

/** Anthropic's prompt as segments in cache order: tools, system blocks, message blocks. */
const anthropicSegments = (body: Record<string, unknown>): Array<Segment> => {
  const segments: Array<Segment> = list(body["tools"]).map((tool) => ({ text: JSON.stringify(tool), breakpoint: Predicate.isRecord(tool) && tool["cache_control"] !== undefined }))
  const system = body["system"]
  if (typeof system === "string") segments.push({ text: system, breakpoint: false })
  for (const block of list(system)) segments.push({ text: text(block), breakpoint: Predicate.isRecord(block) && block["cache_control"] !== undefined })
  for (const message of list(body["messages"])) {
    const content = Predicate.isRecord(message) ? message["content"] : undefined
    if (typeof content === "string") segments.push({ text: content, breakpoint: false })
    for (const block of list(content)) segments.push({ text: Predicate.isRecord(block) && block["type"] === "tool_use" ? JSON.stringify(block["input"]) : text(block), breakpoint: Predicate.isRecord(block) && block["cache_control"] !== undefined })
  }
  return segments
}

/** OpenAI's prompt: the output schema, then the input items; the static part ends before the first user item. */
const openAiPrompt = (body: Record<string, unknown>) => {
  const format = Predicate.isRecord(body["text"]) ? JSON.stringify(body["text"]["format"]) : ""
  let prompt = format + (typeof body["instructions"] === "string" ? body["instructions"] : "")
  let staticEnd: number | undefined = undefined
  for (const item of list(body["input"])) {
    if (staticEnd === undefined && Predicate.isRecord(item) && item["role"] === "user") staticEnd = prompt.length
    prompt += text(Predicate.isRecord(item) ? item["content"] : item)
  }
  return { prompt, staticPart: prompt.slice(0, staticEnd ?? prompt.length) }
}

/** The part of a request that precedes the trace: what must be the same bytes for every analysis of a pass. */
export const staticPartOf = (wire: "anthropic" | "openai" | "chat", body: Record<string, unknown>): string => {
  switch (wire) {
    case "anthropic": {
      const segments = anthropicSegments(body)
      const last = segments.map((segment) => segment.breakpoint).lastIndexOf(true)
      return segments.slice(0, last + 1).map((segment) => segment.text).join("")
    }
    case "openai":
      return openAiPrompt(body).staticPart
    case "chat": {
      const system = list(body["messages"]).find((message) => Predicate.isRecord(message) && message["role"] === "system")
      return JSON.stringify(body["response_format"]) + text(Predicate.isRecord(system) ? system["content"] : "")
    }
  }
}

const commonPrefix = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

export const makePromptCache = () => {
  const anthropicPrefixes = new Set<string>()
  const openAiPrompts = new Map<string, Array<string>>()
  return {
    usage: (wire: "anthropic" | "openai" | "chat", body: Record<string, unknown>): CacheUsage => {
      switch (wire) {
        case "anthropic": {
          const segments = anthropicSegments(body)
          const total = tokens(segments.reduce((sum, segment) => sum + segment.text.length, 0))
          let prefix = ""
          let read = 0
          let lastBreakpoint = 0
          const reached: Array<string> = []
          for (const segment of segments) {
            prefix += segment.text
            if (!segment.breakpoint) continue
            lastBreakpoint = tokens(prefix.length)
            if (lastBreakpoint < MIN_CACHED) continue
            if (anthropicPrefixes.has(prefix)) read = lastBreakpoint
            reached.push(prefix)
          }
          for (const cached of reached) anthropicPrefixes.add(cached)
          const written = lastBreakpoint >= MIN_CACHED ? lastBreakpoint - read : 0
          return { total, read, written }
        }
        case "openai": {
          const { prompt } = openAiPrompt(body)
          const key = typeof body["prompt_cache_key"] === "string" ? body["prompt_cache_key"] : ""
          const seen = openAiPrompts.get(key) ?? []
          const total = tokens(prompt.length)
          const longest = seen.reduce((max, earlier) => Math.max(max, commonPrefix(earlier, prompt)), 0)
          const shared = Math.floor(longest / 4)
          const read = total >= MIN_CACHED && shared >= MIN_CACHED ? MIN_CACHED + Math.floor((shared - MIN_CACHED) / OPENAI_STEP) * OPENAI_STEP : 0
          seen.push(prompt)
          if (seen.length > 32) seen.shift()
          openAiPrompts.set(key, seen)
          return { total, read, written: 0 }
        }
        case "chat":
          return { total: tokens(list(body["messages"]).reduce<number>((sum, message) => sum + text(Predicate.isRecord(message) ? message["content"] : "").length, 0)), read: 0, written: 0 }
      }
    }
  }
}
