/**
 * Model calls that Langfuse keeps in their SDK's own shapes rather than as chat messages (DECISIONS
 * §12), read as the `{role, parts}` messages `parseMessage` knows, each with its pointer:
 *
 * - Gemini (Google GenAI, Vertex AI, Google ADK): a `GenerateContent` request `{model, contents,
 *   config: {system_instruction}}` whose `contents` is a string, a Content `{role, parts}` or a
 *   list of them; a response `{candidates: [{content}]}`, or ADK's `{content: {role, parts}}`; ADK's
 *   run input `{new_message}`. Parts: `text` (a `thought` is a thought), `function_call` /
 *   `functionCall` (a tool call), `function_response` / `functionResponse` (its result; an error
 *   when its `response` holds `error` without `output`, as the API documents), `executable_code`
 *   and `code_execution_result`. Snake and camel case both (the Python and JS SDKs).
 * - A wrapped function's arguments `{args, kwargs}` (LlamaIndex through OpenInference, which writes
 *   an LLM's bound arguments, and Langfuse's `@observe`): on a model call, the strings in `args`
 *   are its prompts, a list of messages there or in `kwargs.messages` its messages.
 * - LlamaIndex `ChatMessage`s `{role, blocks: [{block_type: "text", text}], additional_kwargs}`
 *   in a `{messages}` list: their text blocks, joined, are their content.
 *
 * Undefined for any other value: the importer's own readings apply.
 */
import * as Predicate from "effect/Predicate"
import { str, type Rec } from "../Common.js"

/** Where a call's messages are: the list, its pointer prefix, and the pointer of each when they differ in path. */
export interface CallMessages {
  readonly list: ReadonlyArray<unknown>
  readonly prefix: string
  readonly pointers?: ReadonlyArray<string>
}

const recordOf = (value: unknown): Rec | undefined => (Predicate.isRecord(value) ? value : undefined)

/** `record[snake] ?? record[camel]`. */
const field = (record: Rec, snake: string, camel: string): unknown => record[snake] ?? record[camel]

// ---------------------------------------------------------------------------------------------
// Gemini

/** A function response that is an error, as the API says: `{error}` without `{output}`. */
const isErrorResponse = (response: unknown): boolean => Predicate.isRecord(response) && "error" in response && !("output" in response)

/** One Gemini part as a GenAI part (`{type: text | reasoning | tool_call | tool_call_response}`); unknown ones stay as they are (counted as skipped). */
const partOf = (part: unknown): unknown => {
  if (typeof part === "string") return { type: "text", content: part }
  const record = recordOf(part)
  if (record === undefined) return part
  const call = recordOf(field(record, "function_call", "functionCall"))
  if (call !== undefined) return { type: "tool_call", id: call["id"], name: call["name"], arguments: call["args"] ?? {} }
  const response = recordOf(field(record, "function_response", "functionResponse"))
  if (response !== undefined) {
    return { type: "tool_call_response", id: response["id"], name: response["name"], response: response["response"], is_error: isErrorResponse(response["response"]) }
  }
  const code = recordOf(field(record, "executable_code", "executableCode"))
  if (code !== undefined) return { type: "tool_call", name: "code_execution", arguments: code["code"] ?? "" }
  const result = recordOf(field(record, "code_execution_result", "codeExecutionResult"))
  if (result !== undefined) {
    const outcome = str(result["outcome"]) ?? ""
    return { type: "tool_call_response", name: "code_execution", response: result["output"] ?? outcome, is_error: outcome.length > 0 && outcome !== "OUTCOME_OK" }
  }
  const text = record["text"]
  if (typeof text === "string") return { type: record["thought"] === true ? "reasoning" : "text", content: text }
  return { type: Object.keys(record)[0] ?? "part" }
}

/** A Gemini Content `{role, parts}`: its parts as GenAI parts (the role kept: `user`, `model`, `function`). */
const isContent = (value: unknown): value is Rec => Predicate.isRecord(value) && Array.isArray(value["parts"])

const messageOf = (content: Rec, defaultRole: string): unknown => ({
  role: str(content["role"]) ?? defaultRole,
  parts: Array.isArray(content["parts"]) ? content["parts"].map(partOf) : []
})

/** The text of a system instruction: a string, a Content, or a list of parts. */
const instructionText = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.trim().length > 0 ? value : undefined
  const parts = isContent(value) ? value["parts"] : Array.isArray(value) ? value : undefined
  if (!Array.isArray(parts)) return undefined
  const texts = parts.flatMap((part) => (typeof part === "string" ? [part] : typeof recordOf(part)?.["text"] === "string" ? [String(recordOf(part)?.["text"])] : []))
  return texts.length > 0 ? texts.join("\n") : undefined
}

/** A `GenerateContent` request: `contents` as a string, a Content, or a list of Contents, parts or strings. */
const isGeminiRequest = (value: Rec): boolean => {
  const contents = value["contents"]
  if (contents === undefined || contents === null) return false
  return typeof value["model"] === "string" || Predicate.isRecord(value["config"]) || isContent(contents) || (Array.isArray(contents) && contents.some(isContent))
}

const geminiRequest = (value: Rec, part: string): CallMessages => {
  const list: Array<unknown> = []
  const pointers: Array<string> = []
  const config = recordOf(value["config"])
  const system = config === undefined ? undefined : instructionText(field(config, "system_instruction", "systemInstruction"))
  if (system !== undefined) {
    list.push({ role: "system", content: system })
    pointers.push(`${part}.config.${"system_instruction" in (config ?? {}) ? "system_instruction" : "systemInstruction"}`)
  }
  const contents = value["contents"]
  if (typeof contents === "string" || isContent(contents)) {
    list.push(typeof contents === "string" ? { role: "user", content: contents } : messageOf(contents, "user"))
    pointers.push(`${part}.contents`)
  } else if (Array.isArray(contents)) {
    // a list of parts (or strings) is one user turn; a list of Contents is the conversation
    if (contents.some(isContent)) {
      contents.forEach((content, index) => {
        list.push(isContent(content) ? messageOf(content, "user") : content)
        pointers.push(`${part}.contents[${index}]`)
      })
    } else {
      list.push({ role: "user", parts: contents.map(partOf) })
      pointers.push(`${part}.contents`)
    }
  }
  return { list, prefix: part, pointers }
}

/** A response's first candidate's content, ADK's `{content}` (an LlmResponse or an Event), or ADK's run input `{new_message}`. */
const geminiContent = (value: Rec, part: string): CallMessages | undefined => {
  const candidates = value["candidates"]
  if (Array.isArray(candidates)) {
    const content = recordOf(candidates[0])?.["content"]
    return isContent(content) ? { list: [messageOf(content, "model")], prefix: part, pointers: [`${part}.candidates[0].content`] } : undefined
  }
  const content = value["content"]
  if (isContent(content) && !("role" in value)) return { list: [messageOf(content, "model")], prefix: part, pointers: [`${part}.content`] }
  const message = value["new_message"]
  if (isContent(message)) return { list: [messageOf(message, "user")], prefix: part, pointers: [`${part}.new_message`] }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Wrapped functions' arguments, LlamaIndex messages

/** A LlamaIndex ChatMessage: `blocks` and no `content`. */
const isBlockMessage = (value: unknown): value is Rec => Predicate.isRecord(value) && Array.isArray(value["blocks"]) && value["content"] === undefined

/** A ChatMessage with its content as LlamaIndex's own `ChatMessage.content` gives it: its text blocks joined (images and other blocks are not text). */
const blockMessage = (message: Rec): unknown => {
  const blocks = Array.isArray(message["blocks"]) ? message["blocks"] : []
  const texts = blocks.flatMap((block) => {
    const record = recordOf(block)
    const text = record?.["text"]
    return record?.["block_type"] === "text" && typeof text === "string" ? [text] : []
  })
  return { ...message, blocks: undefined, content: texts.join("\n") }
}

const withBlocks = (list: ReadonlyArray<unknown>): ReadonlyArray<unknown> => (list.some(isBlockMessage) ? list.map((raw) => (isBlockMessage(raw) ? blockMessage(raw) : raw)) : list)

/** A list whose entries are all messages (a role, or LlamaIndex blocks). */
const isMessageList = (value: unknown): value is ReadonlyArray<unknown> =>
  Array.isArray(value) && value.length > 0 && value.every((entry) => Predicate.isRecord(entry) && (typeof entry["role"] === "string" || isBlockMessage(entry)))

/** `{args, kwargs}` of a model call: the prompts in `args`, or the messages in `args` or `kwargs.messages`. */
const argumentsCall = (value: Rec, part: string): CallMessages | undefined => {
  const args = value["args"]
  const kwargs = recordOf(value["kwargs"])
  if (!Array.isArray(args) || Object.keys(value).some((key) => key !== "args" && key !== "kwargs")) return undefined
  const list: Array<unknown> = []
  const pointers: Array<string> = []
  args.forEach((arg, index) => {
    if (typeof arg === "string" && arg.trim().length > 0) {
      list.push({ role: "user", content: arg })
      pointers.push(`${part}.args[${index}]`)
    } else if (isMessageList(arg)) {
      withBlocks(arg).forEach((message, j) => {
        list.push(message)
        pointers.push(`${part}.args[${index}][${j}]`)
      })
    }
  })
  const messages = kwargs?.["messages"]
  if (list.length === 0 && isMessageList(messages)) {
    withBlocks(messages).forEach((message, j) => {
      list.push(message)
      pointers.push(`${part}.kwargs.messages[${j}]`)
    })
  }
  return list.length === 0 ? undefined : { list, prefix: part, pointers }
}

/**
 * The messages of an observation's input or output in one of the shapes above, or undefined.
 * `modelCall`: the observation is a model call (only then are a function's arguments its prompt).
 */
export const callMessages = (value: unknown, part: "input" | "output", modelCall: boolean): CallMessages | undefined => {
  if (!Predicate.isRecord(value)) return undefined
  if (part === "input" && isGeminiRequest(value)) return geminiRequest(value, part)
  const gemini = geminiContent(value, part)
  if (gemini !== undefined) return gemini
  const messages = value["messages"]
  if (Array.isArray(messages) && messages.some(isBlockMessage) && isMessageList(messages)) return { list: withBlocks(messages), prefix: `${part}.messages` }
  return modelCall && part === "input" ? argumentsCall(value, part) : undefined
}

/**
 * A tool observation's output that records no result: `{}` (Google ADK's, whose result is the
 * next model call's `function_response`; an empty result says nothing either way).
 */
export const recordsNoResult = (output: unknown): boolean => Predicate.isRecord(output) && Object.keys(output).length === 0
