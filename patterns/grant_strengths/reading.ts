/**
 * Grant strengths from a raw trace: `task_class` classified by keywords, an estimate. The task's
 * wording decides first; when it names no class, the system prompt, then the names of the tools
 * the agent called; `general` when nothing matches. robbins_culture classifies the same way.
 */
import type { NormalizedTrace } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

/** Task classes in the order they are tried; the first whose wording matches wins. */
export const TASK_CLASSES: ReadonlyArray<{ readonly name: string; readonly test: RegExp }> = [
  {
    name: "coding",
    test: /\b(code|coding|bugs?|unit tests?|failing tests?|test suite|refactor\w*|implement\w*|compil\w*|repo(sitory)?|pull requests?|commits?|stack ?trace|typescript|javascript|python|golang|function|endpoint|script|run_tests|edit_file|bash|git)\b|\w\.(ts|tsx|js|py|go|rs|java|rb)\b/i
  },
  {
    name: "infrastructure_operations",
    test: /\b(incidents?|outages?|alerts?|latency|backups?|on-?call|servers?|databases?|db|replicas?|clusters?|kubernetes|k8s|deploy\w*|downtime|uptime|monitoring|runbooks?|sre|devops)\b/i
  },
  {
    name: "data_analysis",
    test: /\b(data ?sets?|data|csv|spreadsheets?|excel|tables?|statistic\w*|charts?|plots?|analy[sz]\w*|metrics|dashboards?|aggregat\w*|forecast\w*|quarterly|revenue|sales figures)\b/i
  },
  {
    name: "research",
    test: /\b(research\w*|investigat\w*|find (out|the|information|me)|look ?up|sources|literature|market size|compare|comparison|survey|web_search|search the web|browse)\b/i
  },
  {
    name: "customer_support",
    test: /\b(refunds?|charged|subscription|my account|password|log ?in|support|billing|complain\w*|my order|order (number|#)|delivery|cancel\w*|customer|ticket|returned|overdue|not working|broken|damaged|warranty|late fee)\b/i
  },
  {
    name: "writing",
    test: /\b(write|draft|essay|blog|e-?mail|letter|summar\w*|translat\w*|copy ?writing|article|rewrite|proofread\w*|report)\b/i
  },
  {
    name: "planning",
    test: /\b(plan|planning|schedul\w*|itinerar\w*|booking|book (a|me|the|my)|travel|trip|tour|flights?|calendar|agenda)\b/i
  }
]

export const classifyText = (text: string): string | undefined => TASK_CLASSES.find((c) => c.test.test(text))?.name

/** The run's task class: from the task, else the system prompt, else the tools called; `general` otherwise. */
export const taskClass = (trace: NormalizedTrace): string => {
  const system = trace.events.filter((event) => event.role === "system").map((event) => event.content).join("\n")
  const tools = trace.events.flatMap((event) => (event.kind === "tool_call" && event.tool !== undefined ? [event.tool] : [])).join(" ")
  return classifyText(trace.task) ?? classifyText(system) ?? classifyText(tools.replace(/_/g, " ")) ?? classifyText(tools) ?? "general"
}

export const deriveFromTrace: DeriveFromTrace = (trace) => ({ fields: { task_class: taskClass(trace) } })
