/**
 * smolagents' memory copies (DECISIONS §12). smolagents replays its memory into each model call's
 * input: the previous step's model output, stripped, with the stop sequence it was cut at put back
 * (`…</code>`), the step's action as a `tool-call` message (`Calling tools:\n[{…}]`) and its
 * observation as a `tool-response` message (`Observation:\n…`). The first is the earlier output
 * again, the second the output's own action (the code, or the tool calls the output holds), the
 * third what the step's tool spans already returned; read as events they would repeat those. So
 * a copied output is read as the output it copies (and de-duplicated as such), `Calling tools:`
 * copies are not read, and an `Observation:` copy is not read when it holds a result a tool span
 * of the step returned (an observation of code that called no tool is the only record of its
 * output, and stays).
 */
import type { MessageItem, MessageParts } from "../Spans.js"

/** The stop sequences smolagents cuts a model output at and puts back in its memory. */
const STOP_SUFFIX = /\s*(?:<\/code>|<end_code>|<end_action>)\s*$/

const textsOf = (items: ReadonlyArray<MessageItem>): ReadonlyArray<string> => items.flatMap((item) => (item.type === "text" || item.type === "tool_result" ? [item.text] : []))
const startsWith = (message: MessageParts, prefix: string): boolean => {
  const texts = textsOf(message.items)
  return texts.length > 0 && texts.length === message.items.length && texts.every((text) => text.trimStart().startsWith(prefix))
}

export interface MemoryCopies {
  /** A model call's output messages (their texts are what later copies repeat). */
  readonly noteOutput: (messages: ReadonlyArray<MessageParts>) => void
  /** A tool span's result. */
  readonly noteToolResult: (text: string) => void
  /** A model call's input messages without the memory copies (above). */
  readonly inputWithoutCopies: <M extends MessageParts>(messages: ReadonlyArray<M>) => ReadonlyArray<M>
}

export const makeMemoryCopies = (): MemoryCopies => {
  /** Output texts (trimmed) → as the output wrote them. */
  const outputs = new Map<string, string>()
  /** Tool results since the last model output: the current step's. */
  let stepResults: Array<string> = []
  /** Observation copies found to repeat tool results (later calls carry them again). */
  const copies = new Set<string>()

  const isObservationCopy = (message: MessageParts): boolean => {
    if (message.role.toLowerCase() !== "tool-response" || !startsWith(message, "Observation:")) return false
    const text = textsOf(message.items).join("\n")
    if (copies.has(text)) return true
    if (!stepResults.some((result) => text.includes(result))) return false
    copies.add(text)
    return true
  }
  const asOutput = (item: MessageItem): MessageItem => {
    if (item.type !== "text") return item
    const original = outputs.get(item.text.replace(STOP_SUFFIX, "").trim())
    return original === undefined || original === item.text ? item : { type: "text", text: original }
  }

  return {
    noteOutput: (messages) => {
      stepResults = []
      for (const message of messages) {
        for (const item of message.items) if (item.type === "text" && item.text.trim().length > 0) outputs.set(item.text.trim(), item.text)
      }
    },
    noteToolResult: (text) => {
      if (text.trim().length > 0) stepResults.push(text.trim())
    },
    inputWithoutCopies: (messages) => {
      if (outputs.size === 0 && stepResults.length === 0 && copies.size === 0) return messages
      const kept: Array<(typeof messages)[number]> = []
      for (const message of messages) {
        if (message.role.toLowerCase() === "tool-call" && startsWith(message, "Calling tools:")) continue
        if (isObservationCopy(message)) continue
        kept.push(message.role.toLowerCase() === "user" ? message : { ...message, items: message.items.map(asOutput) })
      }
      return kept
    }
  }
}
