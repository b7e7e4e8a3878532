/**
 * LangSmith (`langsmith`): the SDK's batch payload `{post, patch}` of runs, as langsmith-js sends
 * it. The carrier is the fixture's research agent on its successful path (the search and the
 * answer; the fixture's failed `fetch_page` detour is left out), read back into Chat Completions
 * messages; the injection is written in and the run written again as a root chain, one `llm` run
 * per model call (`inputs.messages`, `outputs` the completion with its `finish_reason`) and one
 * `tool` run per call. Failures use the runs' own `error` field: a tool's exception, the model
 * call's SDK error (propagated to the root chain, as LangChain does), and LangGraph's
 * `GraphRecursionError` on the root chain at the turn limit.
 */
import { copy, list, rec, records, str, type Rec } from "../Json.js"
import type { Rng } from "../Random.js"
import type { Injection } from "../Scenario.js"
import { chatRun, sdkErrorText } from "./Chat.js"
import { type Carrier, type Kit, readFixture } from "./Kit.js"

const load = (path: string): Carrier => {
  const body = rec(readFixture(path))
  const runs = records(body["post"])
  const root = runs.find((run) => run["parent_run_id"] === undefined) ?? {}
  const llms = runs.filter((run) => run["run_type"] === "llm")
  const last = llms[llms.length - 1] ?? {}
  // the successful path: the messages up to the search result, then the answer
  const messages = records(rec(last["inputs"])["messages"])
  const upToSearch = messages.slice(0, messages.findIndex((message) => message["role"] === "tool") + 1)
  const final = rec(rec(list(rec(last["outputs"])["choices"])[0])["message"])
  return {
    path,
    facts: { tools: [], agents: [str(root["name"]) ?? "agent"], answer: str(final["content"]) ?? "" },
    body: { root, llm: llms[0] ?? {}, tool: runs.find((run) => run["run_type"] === "tool") ?? {}, history: upToSearch, final }
  }
}

/** A run's start as langsmith-js writes it (microseconds), and as its dotted order spells it. */
const stamp = (ms: number) => {
  const iso = new Date(ms).toISOString().replace("Z", "001Z")
  return { iso, dotted: iso.replace(/[-:.]/g, "") }
}

const recursionText = (limit: number) =>
  `Recursion limit of ${limit} reached without hitting a stop condition. You can increase the limit by setting the \`recursion_limit\` config key.`

const inject = (carrier: Carrier, injection: Injection, rng: Rng): unknown => {
  const body = rec(copy(carrier.body))
  const root = rec(body["root"])
  const llmTemplate = rec(body["llm"])
  const toolTemplate = rec(body["tool"])
  const run = chatRun(records(body["history"]), rec(body["final"]), injection, rng)
  const rootId = str(root["id"]) ?? "01a2099a-fac8-7000-8000-01660af70aa0"
  const rootOrder = str(root["dotted_order"]) ?? `20261123T181121416001Z${rootId}`
  let clock = Date.parse(str(root["start_time"]) ?? "2026-11-23T18:11:21.416Z") + 10
  const uuid = () => `01a2099a-${rng.token(4, "0123456789abcdef")}-7000-8000-${rng.token(12, "0123456789abcdef")}`
  const child = (template: Rec, fields: Rec, ms: number): Rec => {
    const id = uuid()
    const start = stamp(clock)
    clock += ms
    return { ...template, id, start_time: start.iso, end_time: clock, parent_run_id: rootId, trace_id: rootId, dotted_order: `${rootOrder}.${start.dotted}${id}`, child_runs: [], ...fields }
  }
  const runs: Array<Rec> = []
  let failure: string | undefined
  let answer: string | undefined
  const executed = new Set<string>()
  for (const call of run.calls) {
    const output = call.output
    if ("failure" in output) {
      failure = `${output.failure.exception}: ${sdkErrorText(output.failure)}`
      const { outputs: _outputs, ...template } = llmTemplate
      runs.push(child(template, { inputs: { messages: call.input }, error: failure }, rng.int(200, 1500)))
      continue
    }
    runs.push(child(llmTemplate, {
      inputs: { messages: call.input },
      outputs: { id: `chatcmpl-${rng.token(20)}`, object: "chat.completion", model: "gpt-4o-mini", choices: [{ index: 0, message: output.message, finish_reason: output.finish }], usage: { prompt_tokens: rng.int(80, 2000), completion_tokens: rng.int(5, 300) } }
    }, rng.int(300, 2500)))
    if (output.finish !== "tool_calls") answer = typeof output.message["content"] === "string" ? output.message["content"] : ""
    // the tools this call asked for run before the next call
    for (const tool of run.tools) {
      if (executed.has(tool.id) || !JSON.stringify(output.message).includes(tool.id)) continue
      executed.add(tool.id)
      if (tool.result === undefined) continue
      let inputs: unknown
      try {
        inputs = JSON.parse(tool.args)
      } catch {
        inputs = { input: tool.args }
      }
      const { outputs: _outputs, ...template } = toolTemplate
      runs.push(child(template, {
        name: tool.tool,
        inputs,
        // a failed tool's run error is the text the tool message carries (LangChain's ToolNode passes it on)
        ...(tool.result.failure === undefined ? { outputs: { output: tool.result.content } } : { error: tool.result.content })
      }, rng.int(20, 900)))
    }
  }
  const ending = injection.ending
  const { outputs: _rootOutputs, end_time: _rootEnd, ...rootFields } = root
  let rootRun: Rec
  if (ending.kind === "turn_limit") rootRun = { ...rootFields, end_time: clock, error: `GraphRecursionError: ${recursionText(ending.limit)}\nFor troubleshooting, visit: https://python.langchain.com/docs/troubleshooting/errors/GRAPH_RECURSION_LIMIT` }
  else if (failure !== undefined) rootRun = { ...rootFields, end_time: clock, error: failure }
  else if (ending.kind === "stop") rootRun = rootFields
  else rootRun = { ...rootFields, end_time: clock, outputs: { answer: answer ?? "" } }
  return { post: [rootRun, ...runs], patch: [] }
}

export const langSmithKit: Kit = {
  name: "langsmith",
  format: "langsmith",
  provider: "openai",
  carriers: ["langsmith/traceable-batch.json"].map(load),
  inject,
  turnLimitText: (limit) => `Recursion limit of ${limit} reached`
}
