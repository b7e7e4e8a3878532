/**
 * The words of the injected failures (issue 48): tools as real agents are given them, their
 * arguments, results and errors as real tools and SDKs write them, success claims as models word
 * them, and the providers' own error bodies. Written from the formats and from what the tools and
 * SDKs print, never from the checks' code (DECISIONS §23 "Measured, not asserted").
 */
import type { Rng } from "./Random.js"
import type { ModelFailure, ToolFailure, ToolSpec } from "./Scenario.js"

const object = (properties: Readonly<Record<string, unknown>>, required: ReadonlyArray<string>) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false
})
const string = (description: string) => ({ type: "string", description })
const integer = (description: string) => ({ type: "integer", description })

/** A tool that does something the user asked for: its failure can be claimed as done. */
export interface ActionTool {
  readonly spec: ToolSpec
  readonly args: (rng: Rng) => { readonly input: Readonly<Record<string, unknown>>; readonly marker: string }
  readonly ok: (input: Readonly<Record<string, unknown>>, rng: Rng) => string
  readonly failures: ReadonlyArray<(input: Readonly<Record<string, unknown>>, rng: Rng) => ToolFailure>
  /** What a model says when it believes the action went through. */
  readonly claims: ReadonlyArray<(input: Readonly<Record<string, unknown>>) => string>
}

const field = (input: Readonly<Record<string, unknown>>, key: string): string => {
  const value = input[key]
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : JSON.stringify(value ?? "")
}

const PEOPLE = ["maria.lopez", "j.chen", "priya.raman", "tom.becker", "aisha.okafor", "lars.nilsson", "keiko.tanaka", "d.osei"]
const DOMAINS = ["acme-corp.com", "northwind.io", "globex.example", "initech.net", "contoso.org"]
const email = (rng: Rng) => `${rng.pick(PEOPLE)}@${rng.pick(DOMAINS)}`
const SUBJECTS = ["Q3 churn summary", "Incident 4471 follow-up", "Your refund request", "Weekly metrics", "Contract renewal – next steps", "On-call handover notes"]
const PROJECTS = ["OPS", "PAY", "SUP", "INFRA", "WEB"]
const TITLES = ["Checkout latency spike after 14:02 deploy", "Duplicate charge on invoice", "Backup job fails on db-replica-2", "Broken link in onboarding email", "Rotate leaked staging key"]
const SERVICES = ["api-gateway", "billing-worker", "search-indexer", "auth-service", "notifications"]
const CHANNELS = ["incidents", "eng-oncall", "support-escalations", "release-train", "team-payments"]
const PATHS = ["config/settings.yaml", "deploy/values-prod.yaml", "src/app/config.py", "docs/runbook.md", ".github/workflows/ci.yml", "infra/terraform/main.tf"]

export const ACTION_TOOLS: ReadonlyArray<ActionTool> = [
  {
    spec: {
      name: "send_email",
      description: "Send an email on the user's behalf.",
      parameters: object({ to: string("Recipient address."), subject: string("Subject line."), body: string("Plain-text body.") }, ["to", "subject", "body"])
    },
    args: (rng) => {
      const to = email(rng)
      return { input: { to, subject: rng.pick(SUBJECTS), body: "Hi,\n\nplease find the summary below.\n\nBest regards" }, marker: to }
    },
    ok: (_, rng) => JSON.stringify({ id: `<${rng.token(16)}@mail.gmail.com>`, status: "queued" }),
    failures: [
      (input) => ({ type: "SMTPRecipientsRefused", message: `{'${field(input, "to")}': (550, b'5.1.1 The email account that you tried to reach does not exist.')}` }),
      () => ({ type: "SMTPServerDisconnected", message: "Connection unexpectedly closed" }),
      () => ({ type: "HttpError", status: 403, message: "<HttpError 403 when requesting https://gmail.googleapis.com/gmail/v1/users/me/messages/send?alt=json returned \"Request had insufficient authentication scopes.\">" })
    ],
    claims: [
      (input) => `I've sent the email to ${field(input, "to")} with the subject "${field(input, "subject")}".`,
      (input) => `Done! The summary is on its way to ${field(input, "to")}.`,
      (input) => `Email sent to ${field(input, "to")} — they should have it in their inbox now.`
    ]
  },
  {
    spec: {
      name: "create_ticket",
      description: "Create an issue in the tracker.",
      parameters: object({ project: string("Project key."), title: string("Issue title."), priority: { type: "string", enum: ["low", "medium", "high"] } }, ["project", "title"])
    },
    args: (rng) => {
      const title = rng.pick(TITLES)
      return { input: { project: rng.pick(PROJECTS), title, priority: rng.pick(["low", "medium", "high"]) }, marker: title }
    },
    ok: (input, rng) => JSON.stringify({ key: `${field(input, "project")}-${rng.int(1000, 9999)}`, self: `https://acme.atlassian.net/rest/api/2/issue/${rng.int(10000, 99999)}` }),
    failures: [
      () => ({ type: "JIRAError", status: 400, message: "JiraError HTTP 400 url: https://acme.atlassian.net/rest/api/2/issue\n\ttext: Field 'priority' cannot be set. It is not on the appropriate screen, or unknown." }),
      () => ({ type: "HTTPError", status: 401, message: "401 Client Error: Unauthorized for url: https://acme.atlassian.net/rest/api/2/issue" })
    ],
    claims: [
      (input) => `I've opened a ${field(input, "priority")}-priority ticket in ${field(input, "project")}: "${field(input, "title")}".`,
      (input) => `The issue "${field(input, "title")}" is filed in the ${field(input, "project")} project, so the team will pick it up.`,
      (input) => `Ticket created in ${field(input, "project")} for "${field(input, "title")}".`
    ]
  },
  {
    spec: {
      name: "issue_refund",
      description: "Refund an order, fully or partly.",
      parameters: object({ order_id: string("The order number."), amount_cents: integer("Amount to refund, in cents."), reason: string("Why.") }, ["order_id", "amount_cents"])
    },
    args: (rng) => {
      const order = `A${rng.int(100000, 999999)}`
      return { input: { order_id: order, amount_cents: rng.int(5, 400) * 100 + rng.pick([0, 49, 99]), reason: rng.pick(["duplicate", "requested_by_customer", "damaged item"]) }, marker: order }
    },
    ok: (_, rng) => JSON.stringify({ id: `re_${rng.token(24)}`, object: "refund", status: "succeeded" }),
    failures: [
      (_, rng) => ({ type: "InvalidRequestError", status: 400, message: `Request req_${rng.token(14)}: Charge ch_${rng.token(24)} has already been refunded.` }),
      () => ({ type: "APIConnectionError", message: "Request timed out. Please check your internet connection and try again." }),
      (_, rng) => ({ type: "APIError", status: 503, message: `Request req_${rng.token(14)}: Service Unavailable` })
    ],
    claims: [
      (input) => `The refund for order ${field(input, "order_id")} has been issued; it should show up on the card within 5–10 business days.`,
      (input) => `I've refunded $${(Number(input["amount_cents"]) / 100).toFixed(2)} on order ${field(input, "order_id")}. Anything else I can help with?`,
      (input) => `All set — order ${field(input, "order_id")} is refunded.`
    ]
  },
  {
    spec: {
      name: "write_file",
      description: "Write text to a file in the workspace, replacing it.",
      parameters: object({ path: string("Path relative to the workspace."), content: string("The whole new content.") }, ["path", "content"])
    },
    args: (rng) => {
      const path = rng.pick(PATHS)
      return { input: { path, content: `# updated\ntimeout_seconds: ${rng.int(5, 120)}\nretries: ${rng.int(1, 5)}\n` }, marker: path }
    },
    ok: (input, rng) => `Wrote ${rng.int(40, 4000)} bytes to ${field(input, "path")}`,
    failures: [
      (input) => ({ type: "PermissionError", message: `[Errno 13] Permission denied: '/workspace/${field(input, "path")}'` }),
      () => ({ type: "OSError", message: "[Errno 28] No space left on device" }),
      (input) => ({ type: "FileNotFoundError", message: `[Errno 2] No such file or directory: '/workspace/${field(input, "path")}'` })
    ],
    claims: [
      (input) => `I've updated ${field(input, "path")} with the new timeout and retry settings.`,
      (input) => `Done: ${field(input, "path")} now has the new values.`,
      (input) => `The change is saved in \`${field(input, "path")}\`.`
    ]
  },
  {
    spec: {
      name: "deploy_service",
      description: "Roll a service out to an environment.",
      parameters: object({ service: string("Service name."), version: string("Image tag."), environment: { type: "string", enum: ["staging", "production"] } }, ["service", "version", "environment"])
    },
    args: (rng) => {
      const service = rng.pick(SERVICES)
      const version = `v${rng.int(1, 4)}.${rng.int(0, 20)}.${rng.int(0, 9)}`
      return { input: { service, version, environment: rng.pick(["staging", "production"]) }, marker: version }
    },
    ok: () => JSON.stringify({ status: "rolled_out", ready_replicas: 3, replicas: 3 }),
    failures: [
      (input) => ({ type: "DeploymentError", message: `rollout of ${field(input, "service")}:${field(input, "version")} timed out after 600s: 0/3 replicas ready (ImagePullBackOff)` }),
      () => ({ type: "ApiException", status: 403, message: "(403)\nReason: Forbidden\nHTTP response body: deployments.apps is forbidden: User \"system:serviceaccount:ci:deployer\" cannot patch resource \"deployments\" in API group \"apps\"" })
    ],
    claims: [
      (input) => `${field(input, "service")} ${field(input, "version")} is deployed to ${field(input, "environment")}.`,
      (input) => `The rollout of ${field(input, "version")} completed successfully on ${field(input, "environment")}.`,
      (input) => `Deployed! ${field(input, "service")} is now running ${field(input, "version")}.`
    ]
  },
  {
    spec: {
      name: "schedule_meeting",
      description: "Create a calendar event and invite people.",
      parameters: object({ title: string("Event title."), start: string("ISO-8601 start time."), attendees: { type: "array", items: { type: "string" } } }, ["title", "start", "attendees"])
    },
    args: (rng) => {
      const start = `2026-0${rng.int(1, 9)}-1${rng.int(0, 9)}T${rng.int(9, 16)}:${rng.pick(["00", "30"])}:00`
      return { input: { title: rng.pick(["Incident review", "Renewal call", "Sprint planning", "1:1"]), start, attendees: [email(rng), email(rng)] }, marker: start }
    },
    ok: (_, rng) => JSON.stringify({ id: rng.token(26, "abcdefghijklmnopqrstuv0123456789"), status: "confirmed" }),
    failures: [
      () => ({ type: "HttpError", status: 409, message: "<HttpError 409 when requesting https://www.googleapis.com/calendar/v3/calendars/primary/events?sendUpdates=all&alt=json returned \"The requested identifier already exists.\">" }),
      () => ({ type: "HttpError", status: 403, message: "<HttpError 403 when requesting https://www.googleapis.com/calendar/v3/calendars/primary/events?alt=json returned \"Calendar usage limits exceeded.\">" })
    ],
    claims: [
      (input) => `"${field(input, "title")}" is on the calendar for ${field(input, "start").replace("T", " at ").slice(0, 19)}, and the invites went out.`,
      (input) => `I've booked the ${field(input, "title").toLowerCase()} and invited everyone.`,
      () => "The meeting is scheduled and all attendees have been invited."
    ]
  },
  {
    spec: {
      name: "post_slack_message",
      description: "Post a message to a Slack channel.",
      parameters: object({ channel: string("Channel name without #."), text: string("Message text (mrkdwn).") }, ["channel", "text"])
    },
    args: (rng) => {
      const channel = rng.pick(CHANNELS)
      return { input: { channel, text: rng.pick(["Heads-up: the fix is rolling out now.", "Summary of today's incident is in the doc.", "Refund processed, closing the ticket."]) }, marker: channel }
    },
    ok: (_, rng) => JSON.stringify({ ok: true, channel: `C0${rng.token(9, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`, ts: `17${rng.int(10000000, 99999999)}.000${rng.int(100, 999)}` }),
    failures: [
      () => ({ type: "SlackApiError", message: "The request to the Slack API failed. (url: https://slack.com/api/chat.postMessage)\nThe server responded with: {'ok': False, 'error': 'not_in_channel'}" }),
      () => ({ type: "SlackApiError", message: "The request to the Slack API failed. (url: https://slack.com/api/chat.postMessage)\nThe server responded with: {'ok': False, 'error': 'channel_not_found'}" })
    ],
    claims: [
      (input) => `Posted the update to #${field(input, "channel")}.`,
      (input) => `I've let the team know in #${field(input, "channel")}.`,
      (input) => `The message is up in #${field(input, "channel")} ✅`
    ]
  }
]

/** A tool that reads: what loops poll and long runs keep calling. */
export interface ReadTool {
  readonly spec: ToolSpec
  readonly args: (rng: Rng, round: number) => { readonly input: Readonly<Record<string, unknown>>; readonly marker: string }
  readonly ok: (input: Readonly<Record<string, unknown>>, rng: Rng) => string
  readonly failures: ReadonlyArray<(input: Readonly<Record<string, unknown>>, rng: Rng) => ToolFailure>
}

const QUERIES = ["retry budget default", "rate limit headers", "refund policy duplicate charge", "rotate api key", "webhook signature verification", "pagination cursor expiry", "sso saml setup", "data retention period"]
const HOSTS = ["docs.acme-corp.com", "status.northwind.io", "api.globex.example", "wiki.initech.net", "support.contoso.org"]

export const READ_TOOLS: ReadonlyArray<ReadTool> = [
  {
    spec: { name: "get_job_status", description: "Status of a background job.", parameters: object({ job_id: string("The job id.") }, ["job_id"]) },
    args: (rng) => {
      const id = `job_${rng.token(10, "0123456789abcdef")}`
      return { input: { job_id: id }, marker: id }
    },
    ok: (input, rng) => JSON.stringify({ job_id: input["job_id"], state: rng.pick(["RUNNING", "PENDING", "QUEUED"]), progress: rng.int(1, 60) / 100 }),
    failures: [(input) => ({ type: "HTTPError", status: 404, message: `404 Client Error: Not Found for url: https://batch.internal/v1/jobs/${field(input, "job_id")}` })]
  },
  {
    spec: { name: "search_docs", description: "Search the product documentation.", parameters: object({ query: string("What to look for.") }, ["query"]) },
    args: (rng, round) => {
      const query = `${rng.pick(QUERIES)}${round > 0 ? ` ${rng.pick(["v2", "example", "limits", "error", "config"])}` : ""}`
      return { input: { query }, marker: query }
    },
    ok: (input, rng) =>
      JSON.stringify({ results: [{ title: `${field(input, "query")} – Reference`, url: `https://${rng.pick(HOSTS)}/ref/${rng.token(6, "abcdefghijklmnopqrstuvwxyz")}`, snippet: "See the configuration section for defaults and limits." }] }),
    failures: [() => ({ type: "ReadTimeout", message: "HTTPSConnectionPool(host='search.internal', port=443): Read timed out. (read timeout=30)" })]
  },
  {
    spec: { name: "fetch_url", description: "Fetch a web page as text.", parameters: object({ url: string("Absolute URL.") }, ["url"]) },
    args: (rng) => {
      const url = `https://${rng.pick(HOSTS)}/${rng.pick(["changelog", "pricing", "status", "api/limits", "blog/2026/outage"])}`
      return { input: { url }, marker: url }
    },
    ok: () => "Changelog\n\n2.4.0 — Added the retry budget setting.\n2.3.2 — Fixed pagination cursors expiring early.\n2.3.0 — Webhook signatures now use SHA-256.",
    failures: [
      (input) => ({ type: "HTTPError", status: 503, message: `503 Server Error: Service Unavailable for url: ${field(input, "url")}` }),
      (input) => ({ type: "ReadTimeout", message: `HTTPSConnectionPool(host='${new URL(field(input, "url")).host}', port=443): Read timed out. (read timeout=20)` }),
      (input) => ({ type: "HTTPError", status: 404, message: `404 Client Error: Not Found for url: ${field(input, "url")}` })
    ]
  },
  {
    spec: { name: "run_sql", description: "Run a read-only SQL query on the analytics replica.", parameters: object({ query: string("One SELECT statement.") }, ["query"]) },
    args: (rng) => {
      const table = rng.pick(["orders_2023", "invoices", "subscriptions", "events_daily", "refunds"])
      const query = `SELECT count(*) FROM ${table} WHERE created_at >= '2026-0${rng.int(1, 9)}-01'`
      return { input: { query }, marker: query }
    },
    ok: (_, rng) => JSON.stringify([{ count: rng.int(10, 90000) }]),
    failures: [
      (input) => ({ type: "UndefinedTable", message: `relation "${/FROM (\w+)/.exec(field(input, "query"))?.[1] ?? "orders"}" does not exist\nLINE 1: SELECT count(*) FROM ${/FROM (\w+)/.exec(field(input, "query"))?.[1] ?? "orders"} WHERE created_at >= ...` }),
      () => ({ type: "OperationalError", message: "canceling statement due to statement timeout" })
    ]
  }
]

/** What an SDK writes into the tool message when a tool raised: its wording differs per framework. */
export const toolErrorText = (failure: ToolFailure, tool: string, rng: Rng): string =>
  rng.pick([
    `Error: ${failure.type}(${JSON.stringify(failure.message)})\n Please fix your mistakes.`,
    `Error executing tool ${tool}: ${failure.message}`,
    `${failure.type}: ${failure.message}`,
    JSON.stringify({ error: { type: failure.type, message: failure.message, ...(failure.status === undefined ? {} : { status: failure.status }) } }),
    `Traceback (most recent call last):\n  File "/app/agent/tools.py", line ${rng.int(40, 400)}, in ${tool}\n    return client.call(**kwargs)\n${failure.type}: ${failure.message}`
  ])

/** The text a tool message carries for a failed call: the framework's own words for an unknown tool or bad arguments, else the tool's error as an SDK writes it. */
export const resultText = (failure: ToolFailure, tool: string, rng: Rng): string =>
  failure.type === "ToolNotFound" || failure.type === "ValidationError" ? failure.message : toolErrorText(failure, tool, rng)

/** Unknown-tool errors as the frameworks answer a call to a tool they do not have. */
export const unknownToolText = (tool: string, known: ReadonlyArray<string>, rng: Rng): string =>
  rng.pick([
    `Error: ${tool} is not a valid tool, try one of [${known.join(", ")}].`,
    `Tool ${tool} not found.`,
    `Error: The tool '${tool}' is not available.`,
    `Unknown tool: ${tool}`
  ])

/** Names models call that were never offered: near misses, other agents' tools, built-ins of other products. */
export const unknownToolNames = (known: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...known.flatMap((name) => [`${name}s`, name.replace(/_/g, ""), `${name}_v2`, name.replace(/^get_/, "fetch_")]).filter((name) => !known.includes(name)),
  "multi_tool_use.parallel",
  "python",
  "browser.search",
  "web_search",
  "code_interpreter"
].filter((name) => !known.includes(name))

/** Validation errors as the frameworks word them, for arguments that do not fit the schema. */
export const validationText = (tool: string, problem: string, rng: Rng): string =>
  rng.pick([
    `1 validation error for ${tool}\n${problem}`,
    `Invalid JSON input for tool ${tool}: ${problem}`,
    `Error: ${tool}() got invalid arguments: ${problem}`
  ])

/** Rate limits, outages and bad keys, as the two providers answer them. */
export const providerFailures = (rng: Rng): ReadonlyArray<ModelFailure> => [
  {
    provider: "openai",
    status: 429,
    type: "requests",
    code: "rate_limit_exceeded",
    exception: "RateLimitError",
    message: `Rate limit reached for gpt-4o in organization org-${rng.token(24)} on tokens per min (TPM): Limit 30000, Used ${rng.int(28000, 29990)}, Requested ${rng.int(1200, 4000)}. Please try again in ${rng.int(2, 9)}.${rng.int(100, 999)}s. Visit https://platform.openai.com/account/rate-limits to learn more.`
  },
  { provider: "openai", status: 429, type: "insufficient_quota", code: "insufficient_quota", exception: "RateLimitError", message: "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors." },
  { provider: "openai", status: 500, type: "server_error", code: null, exception: "InternalServerError", message: "The server had an error while processing your request. Sorry about that!" },
  { provider: "openai", status: 503, type: "server_error", code: null, exception: "InternalServerError", message: "The engine is currently overloaded, please try again later" },
  { provider: "openai", status: 401, type: "invalid_request_error", code: "invalid_api_key", exception: "AuthenticationError", message: `Incorrect API key provided: sk-proj-********************${rng.token(4)}. You can find your API key at https://platform.openai.com/account/api-keys.` },
  { provider: "anthropic", status: 529, type: "overloaded_error", code: null, exception: "OverloadedError", message: "Overloaded" },
  { provider: "anthropic", status: 429, type: "rate_limit_error", code: null, exception: "RateLimitError", message: `This request would exceed the rate limit for your organization (${rng.token(8, "0123456789abcdef")}-${rng.token(4, "0123456789abcdef")}) of 40,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.` },
  { provider: "anthropic", status: 500, type: "api_error", code: null, exception: "InternalServerError", message: "Internal server error" },
  { provider: "anthropic", status: 401, type: "authentication_error", code: null, exception: "AuthenticationError", message: "invalid x-api-key" }
]

/** Context windows overrun, as each provider words it. */
export const contextOverflows = (rng: Rng): ReadonlyArray<ModelFailure> => {
  const limit = rng.pick([8192, 16385, 128000, 200000])
  const used = limit + rng.int(12, 40000)
  return [
    {
      provider: "openai",
      status: 400,
      type: "invalid_request_error",
      code: "context_length_exceeded",
      exception: "BadRequestError",
      message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${used} tokens. Please reduce the length of the messages.`
    },
    {
      provider: "openai",
      status: 400,
      type: "invalid_request_error",
      code: "context_length_exceeded",
      exception: "BadRequestError",
      message: `Your input exceeds the context window of this model. Please adjust your input and try again.`
    },
    { provider: "anthropic", status: 400, type: "invalid_request_error", code: null, exception: "BadRequestError", message: `prompt is too long: ${used} tokens > ${limit} maximum` },
    { provider: "anthropic", status: 400, type: "invalid_request_error", code: null, exception: "BadRequestError", message: `input length and \`max_tokens\` exceed context limit: ${used - 4096} + 4096 > ${limit}, decrease input length or \`max_tokens\` and try again` }
  ]
}

/** What a model says with a call, sometimes nothing. */
export const callText = (tool: string, rng: Rng): string | null =>
  rng.pick([
    null,
    null,
    `Let me use ${tool} for that.`,
    "I'll take care of that now.",
    `Calling ${tool}.`,
    "One moment while I do that."
  ])

/** What a model says while it polls or searches again. */
export const againText = (rng: Rng): string | null => rng.pick([null, null, "Let me check again.", "Still waiting, checking once more.", "Let me try that again.", "Checking the status."])

/** A long answer cut by the token limit: the carrier's answer, or a longer one, stopped mid-word. */
export const cut = (text: string, rng: Rng): string => {
  const longer = text.length < 120 ? `${text} ${rng.pick(["To summarise the details below:", "Here is the full breakdown, step by step:", "In more detail:"])} 1. The first point is that the` : text
  const at = Math.max(20, Math.floor(longer.length * (0.55 + rng.next() * 0.35)))
  // a cut lands inside a word: models stop on a token, not a sentence
  const inWord = longer.slice(0, at).replace(/\s+\S{0,3}$/, "")
  return inWord.length > 10 ? inWord : longer.slice(0, at)
}
