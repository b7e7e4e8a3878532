/**
 * The grouping-quality table of problems (DECISIONS §19), written BEFORE the fingerprint code:
 * base failures, each labelled with the true problem it is, over the project's real trace
 * fixtures. The generator (generator.ts) turns each into the variations other runs of the same
 * failure would show (other ids, numbers, names, timestamps, arguments, quoted values); a
 * grouping is then scored against the labels with B-cubed precision and recall. Different labels
 * that share a pattern and a playbook (`DISTINCT_PAIRS`) are the failures a grouping must keep
 * apart although pattern and playbook alone would merge them.
 *
 * Every fixture is already in the repository under test/fixtures/traces/<format>/ (each folder's
 * README.md says where it comes from: recorded runs, the producers' own test files, public data
 * sets such as MAST, Who&When and tau-bench). Each is read with the project's own importers
 * (`detectFormat` and the importer's `read`, src/Traces/Normalize.ts), and `event` indexes the
 * first normalized trace of the fixture. `quote` is verbatim in that event's content.
 *
 * Titles are worded as a model words a finding: they may name the trace's agents and tools, cite
 * numbers, ids and quoted values. Titles of different labels differ in meaning, not only in names.
 */
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { NormalizedTrace } from "../../../src/Traces/Model.js"
import { detectFormat } from "../../../src/Traces/Normalize.js"

export type Severity = "low" | "medium" | "high" | "critical"

export interface BaseFailure {
  /** The true problem: the same label in two runs means the same failure. */
  readonly label: string
  /** Path from the repository root. */
  readonly fixture: string
  /** A slug of patterns/catalogue.json. */
  readonly pattern: string
  /** A playbook key of that pattern (its `key_parts` joined by "."), or none. */
  readonly playbook: string | null
  readonly severity: Severity
  readonly title: string
  /** Index into the first normalized trace's events: the event the first evidence cites. */
  readonly event: number
  /** Verbatim in that event's content. */
  readonly quote: string
}

const ROOT = join(import.meta.dirname, "..", "..", "..")
const F = "test/fixtures/traces"

/** A fixture's body as the importers receive it: JSON Lines as the array of their records. */
const fixtureBody = (fixture: string): unknown => {
  const raw = readFileSync(join(ROOT, fixture), "utf8")
  return fixture.endsWith(".jsonl")
    ? raw
        .split("\n")
        .filter((line) => line.trim().length > 0)
        .map((line): unknown => JSON.parse(line))
    : JSON.parse(raw)
}

/** The first trace of a fixture, read by the importer auto detection gives it to. */
export const normalizedFixture = (fixture: string): Either.Either<NormalizedTrace, string> => {
  const body = fixtureBody(fixture)
  const importer = detectFormat(body)
  if (importer === undefined) return Either.left(`${fixture}: no importer recognises it`)
  return Either.flatMap(importer.read(body), (traces) => {
    const first = traces[0]
    return first === undefined ? Either.left(`${fixture}: no trace`) : Either.right(first)
  })
}

const TOOL_FAILURE = "environmental.tool_failure_unhandled"
const FABRICATED = "internal.fabricated_content"
const MISREAD = "internal.misread_observation"
const EXHAUSTION = "environmental.resource_exhaustion"
const CONTRACT = "interactional.tool_contract_mismatch"

export const LABELLED: ReadonlyArray<BaseFailure> = [
  // lewin · environmental.tool_failure_unhandled: different ways of mishandling a failed tool
  {
    label: "weather-timeout-silently-substituted",
    fixture: `${F}/openai/chat-tool-calls.json`,
    pattern: "lewin",
    playbook: TOOL_FAILURE,
    severity: "medium",
    title: "Agent replaced the timed-out get_weather lookup for 'Berlin' with get_forecast without telling the user",
    event: 5,
    quote: "weather service timed out for Berlin"
  },
  {
    label: "email-send-failure-unreported",
    fixture: `${F}/openinference/multi-agent-retriever.spans.json`,
    pattern: "lewin",
    playbook: TOOL_FAILURE,
    severity: "high",
    title: "coordinator never told the user that send_email failed with 'relay refused'",
    event: 11,
    quote: "SMTPError: relay refused"
  },
  {
    label: "failing-tool-called-again-unchanged",
    fixture: `${F}/inspect/log_tool_call_error.json`,
    pattern: "lewin",
    playbook: TOOL_FAILURE,
    severity: "medium",
    title: "bash was called 11 times in a row while every call failed, with no change of command",
    event: 10,
    quote: "The tool output limit of 10 MiB was exceeded."
  },
  {
    label: "disk-check-permission-error-dropped",
    fixture: `${F}/autogen/agentchat-task-result.json`,
    pattern: "lewin",
    playbook: TOOL_FAILURE,
    severity: "medium",
    title: "ops_agent handed over to storage_agent without resolving the disk_usage PermissionError, so free space on db-replica-2 was never checked",
    event: 5,
    quote: "PermissionError: disk_usage requires the ops-readonly role"
  },
  {
    label: "refund-timeout-no-retry",
    fixture: `${F}/otel/multi-agent-handoff.spans.json`,
    pattern: "lewin",
    playbook: TOOL_FAILURE,
    severity: "high",
    title: "billing_agent gave up after a single refund_charge gateway timeout (30s) instead of retrying or escalating",
    event: 8,
    quote: "gateway timeout after 30s"
  },
  {
    label: "write-denied-session-abandoned",
    fixture: `${F}/gemini_cli/acp-resume.session.json`,
    pattern: "lewin",
    playbook: TOOL_FAILURE,
    severity: "medium",
    title: "The session ended after write_file returned 'Permission denied', with no retry and no word to the user",
    event: 7,
    quote: "Permission denied"
  },
  {
    label: "fetch-503-answered-from-snippet",
    fixture: `${F}/langsmith/traceable-batch.json`,
    pattern: "lewin",
    playbook: TOOL_FAILURE,
    severity: "medium",
    title: "research_agent answered from the search snippet after fetch_page failed with 503, hiding that the changelog was never read",
    event: 6,
    quote: "503 Service Unavailable"
  },
  {
    label: "missing-module-not-installed",
    fixture: `${F}/autogen/ag2-chat-result.json`,
    pattern: "lewin",
    playbook: TOOL_FAILURE,
    severity: "low",
    title: "tour_planner dropped the computation when code_execution failed with exitcode 1 on a missing module, instead of installing 'geopy'",
    event: 4,
    quote: "exitcode: 1 (execution failed)"
  },

  // lewin · internal.fabricated_content: different things invented
  {
    label: "action-claimed-without-tool",
    fixture: `${F}/autogen/core-llm-history.json`,
    pattern: "lewin",
    playbook: FABRICATED,
    severity: "high",
    title: "LoansDeskAgent claimed it cleared the overdue flag on 'The Dispossessed' without calling any tool",
    event: 7,
    quote: "I have cleared the overdue flag"
  },
  {
    label: "irrelevant-results-passed-as-confirmation",
    fixture: `${F}/openinference/smolagents-live.spans.json`,
    pattern: "lewin",
    playbook: FABRICATED,
    severity: "high",
    title: "assistant said the web_search results confirmed a population of 14 million for 'Tokyo' although they were about Tokelau",
    event: 6,
    quote: "The search results show multiple sources confirming"
  },
  {
    label: "price-used-before-search-result",
    fixture: `${F}/openai/responses-items.json`,
    pattern: "lewin",
    playbook: FABRICATED,
    severity: "medium",
    title: "assistant converted a list price of 80 USD with convert_currency though web_search never returned a price",
    event: 3,
    quote: "\"amount\":80"
  },
  {
    label: "tool-output-staged-with-echo",
    fixture: `${F}/openinference/claude-agent-sdk-live.spans.json`,
    pattern: "lewin",
    playbook: FABRICATED,
    severity: "critical",
    title: "The Agent sub-agent produced the 89°F New York reading with an echo in Bash instead of looking the weather up",
    event: 4,
    quote: "Temperature: 89°F"
  },
  {
    label: "distances-invented-by-hand",
    fixture: `${F}/autogen/ag2-chat-result.json`,
    pattern: "lewin",
    playbook: FABRICATED,
    severity: "medium",
    title: "tour_planner gave walking distances such as 350 m that no tool computed",
    event: 5,
    quote: "about 350 m uphill"
  },
  {
    label: "answer-from-unopened-page",
    fixture: `${F}/autogen/who-and-when-hand-crafted-6.json`,
    pattern: "lewin",
    playbook: FABRICATED,
    severity: "high",
    title: "Orchestrator recorded a $1.08 billion sale at 1800 Owens Street as found, though WebSurfer only saw a search results page",
    event: 5,
    quote: "is $1.08 billion for 1800 Owens Street"
  },

  // lewin · internal.misread_observation
  {
    label: "fare-total-miscomputed",
    fixture: `${F}/tau_bench/tau-bench-gpt-4o-airline.json`,
    pattern: "lewin",
    playbook: MISREAD,
    severity: "high",
    title: "assistant added only two fares (152 + 103) and charged 255 when book_reservation needed 305",
    event: 21,
    quote: "total price is 305, but paid 255"
  },
  {
    label: "file-quoting-misread-before-edit",
    fixture: `${F}/trajectory/openhands-events.json`,
    pattern: "lewin",
    playbook: MISREAD,
    severity: "low",
    title: "openhands assumed double quotes in tests/test_export.py, so its edit of '2025-3-7' matched nothing",
    event: 13,
    quote: "did not appear verbatim in /workspace/tests/test_export.py"
  },
  {
    label: "count-taken-from-partial-screenshot",
    fixture: `${F}/autogen/who-and-when-hand-crafted-43.json`,
    pattern: "lewin",
    playbook: MISREAD,
    severity: "high",
    title: "Assistant counted 6 stops between South Station and Windsor Gardens from a screenshot that did not show South Station",
    event: 12,
    quote: "South Station is not shown in the extracted portion"
  },
  {
    label: "string-order-rule-misread",
    fixture: `${F}/mast/MAD_human_labelled_dataset.16-metagpt-mmlu.json`,
    pattern: "lewin",
    playbook: MISREAD,
    severity: "medium",
    title: "SimpleCoder read compareTo backwards and concluded that 'CARROT' sorts before 'Carrot'",
    event: 1,
    quote: "so strA < strB in alphabetical order due to uppercase precedence"
  },

  // aar · execution_drift.false_completion
  {
    label: "verification-claimed-not-run",
    fixture: `${F}/autogen/who-and-when-algorithm-generated-47.json`,
    pattern: "aar",
    playbook: "execution_drift.false_completion",
    severity: "medium",
    title: "Mesopotamian_Number_Systems_Expert said all steps had been verified although no check was ever run",
    event: 2,
    quote: "all the steps have been verified"
  },
  {
    label: "fix-declared-working-on-failed-run",
    fixture: `${F}/mast/MAD_human_labelled_dataset.06-hyperagent-swe-bench-lite.json`,
    pattern: "aar",
    playbook: "execution_drift.false_completion",
    severity: "high",
    title: "Planner declared the ColumnTransformer fix successful while the Executor's test run had failed on a missing lightgbm",
    event: 20,
    quote: "have successfully resolved the issue"
  },
  {
    label: "submitted-without-running-code",
    fixture: `${F}/trajectory/swe-agent-demo-str-replace-anthropic.json`,
    pattern: "aar",
    playbook: "execution_drift.false_completion",
    severity: "medium",
    title: "swe-agent submitted the missing_colon.py edit without ever running the script",
    event: 10,
    quote: "The change should not break any existing functionality."
  },
  {
    label: "todo-marked-done-without-work",
    fixture: `${F}/claude_code/todowrite_examples.jsonl`,
    pattern: "aar",
    playbook: "execution_drift.false_completion",
    severity: "low",
    title: "claude set todo 1 'Design the feature architecture' to completed in TodoWrite though no design was done",
    event: 5,
    quote: "\"status\":\"completed\""
  },

  // yerkes_dodson · over_aroused.retry_exhaustion
  {
    label: "same-refusal-repeated",
    fixture: `${F}/mast/MAD_human_labelled_dataset.02-ag2-gsm-plus.json`,
    pattern: "yerkes_dodson",
    playbook: "over_aroused.retry_exhaustion",
    severity: "medium",
    title: "assistant answered each of the 4 'Continue' prompts by restating that the problem cannot be solved",
    event: 9,
    quote: "the problem cannot be solved"
  },
  {
    label: "clicks-repeated-on-unchanged-page",
    fixture: `${F}/inspect/browser.json`,
    pattern: "yerkes_dodson",
    playbook: "over_aroused.retry_exhaustion",
    severity: "low",
    title: "assistant kept calling web_browser_click on elements 884 and 903 although each click returned the same page",
    event: 6,
    quote: "We are now the AI Security Institute"
  },
  {
    label: "tests-resent-unchanged",
    fixture: `${F}/mast/MAD_human_labelled_dataset.04-metagpt-programdev.json`,
    pattern: "yerkes_dodson",
    playbook: "over_aroused.retry_exhaustion",
    severity: "low",
    title: "Bob(SimpleTester) sent the identical palindrome tests again in round 2 after Charlie(SimpleReviewer) gave no review",
    event: 3,
    quote: "def test_single_palindrome():"
  },

  // johari · hidden.undisclosed_tool_caveat
  {
    label: "denied-tool-swapped-silently",
    fixture: `${F}/anthropic/managed-mcp-tools-reject.jsonl`,
    pattern: "johari",
    playbook: "hidden.undisclosed_tool_caveat",
    severity: "medium",
    title: "Exa assistant answered with a star count from web_fetch without saying that web_search_exa, which the user asked for, was denied",
    event: 5,
    quote: "Permission to use mcp__exa__web_search_exa has been rejected."
  },
  {
    label: "masked-output-read-as-whole",
    fixture: `${F}/gemini_cli/tool-output-masking.session.json`,
    pattern: "johari",
    playbook: "hidden.undisclosed_tool_caveat",
    severity: "low",
    title: "gemini answered from the preview of run_shell_command's masked output without saying the full output was not read",
    event: 3,
    quote: "Output too large."
  },
  {
    label: "metric-gap-undisclosed",
    fixture: `${F}/anthropic/request-tool-use.json`,
    pattern: "johari",
    playbook: "hidden.undisclosed_tool_caveat",
    severity: "medium",
    title: "assistant ruled out the database without telling the user that query_metrics could not return 'gateway.latency.p99'",
    event: 7,
    quote: "is not exported in this region"
  },

  // lewin · environmental.resource_exhaustion
  {
    label: "search-quota-exhausted",
    fixture: `${F}/anthropic/server-tools.json`,
    pattern: "lewin",
    playbook: EXHAUSTION,
    severity: "medium",
    title: "web_search hit 'max_uses_exceeded' on the second query, so the Artemis II answer rests on one search",
    event: 6,
    quote: "max_uses_exceeded"
  },
  {
    label: "model-rate-limit-no-backoff",
    fixture: `${F}/langsmith/runtree.json`,
    pattern: "lewin",
    playbook: EXHAUSTION,
    severity: "high",
    title: "support_graph stopped when the agent node got a 429 from the model, with no backoff",
    event: 4,
    quote: "RateLimitError: 429 Too Many Requests"
  },
  {
    label: "provider-overloaded-no-fallback",
    fixture: `${F}/anthropic/exchange-error.json`,
    pattern: "lewin",
    playbook: EXHAUSTION,
    severity: "high",
    title: "The request failed with 'Overloaded' and the incident summary was never produced, with no fallback model",
    event: 2,
    quote: "Overloaded"
  },
  {
    label: "step-limit-reached",
    fixture: `${F}/trajectory/mini-swe-agent.traj.json`,
    pattern: "lewin",
    playbook: EXHAUSTION,
    severity: "medium",
    title: "mini-swe-agent ran out of its step budget (LimitsExceeded) before the slugify fix was tested",
    event: 13,
    quote: "LimitsExceeded"
  },

  // lewin · interactional.tool_contract_mismatch
  {
    label: "malformed-id-argument",
    fixture: `${F}/openai/agents-sdk-chat-completions.json`,
    pattern: "lewin",
    playbook: CONTRACT,
    severity: "medium",
    title: "Billing agent sent lookup_invoice the id 'INV-1O42' with a letter O instead of a zero",
    event: 6,
    quote: "INV-1O42"
  },
  {
    label: "reply-format-broke-action-contract",
    fixture: `${F}/trajectory/mini-swe-agent.traj.json`,
    pattern: "lewin",
    playbook: CONTRACT,
    severity: "medium",
    title: "mini-swe-agent answered in prose with no bash block, breaking the one-action reply format",
    event: 12,
    quote: "found 0 actions"
  },

  // Singles: failures alone under their pattern and playbook (or with no playbook)
  {
    label: "unrequested-file-created",
    fixture: `${F}/codex/rollout-tools.jsonl`,
    pattern: "hexaco",
    playbook: "openness_risk.scope_creep",
    severity: "medium",
    title: "codex created gamma.txt with apply_patch although the user only asked for a listing",
    event: 4,
    quote: "*** Add File: gamma.txt"
  },
  {
    label: "invalid-api-key",
    fixture: `${F}/smolagents/gpt-4o__code__math__2025-09-08.head2.jsonl`,
    pattern: "lewin",
    playbook: null,
    severity: "critical",
    title: "The run failed at its first model call with an AuthenticationError: the API key is invalid",
    event: 1,
    quote: "Incorrect API key provided"
  },
  {
    label: "server-error-no-retry",
    fixture: `${F}/openai/responses-failed.json`,
    pattern: "lewin",
    playbook: null,
    severity: "high",
    title: "The response failed with a server error before the report was fetched, and was not retried",
    event: 2,
    quote: "The server had an error while processing your request."
  },
  {
    label: "degraded-model-metadata-unnoticed",
    fixture: `${F}/codex/codex-0.169-exec-json.jsonl`,
    pattern: "johari",
    playbook: "unknown.uninstrumented_failure",
    severity: "low",
    title: "codex ran on fallback metadata because model metadata for 'gpt-5' was not found, and nobody was told",
    event: 0,
    quote: "Defaulting to fallback metadata"
  }
]

/**
 * Pairs of labels that are different failures but share pattern and playbook: a grouping must
 * keep each pair apart.
 */
export const DISTINCT_PAIRS: ReadonlyArray<readonly [string, string]> = [
  // lewin · environmental.tool_failure_unhandled (8 labels, 28 pairs)
  ["weather-timeout-silently-substituted", "email-send-failure-unreported"],
  ["weather-timeout-silently-substituted", "failing-tool-called-again-unchanged"],
  ["weather-timeout-silently-substituted", "disk-check-permission-error-dropped"],
  ["weather-timeout-silently-substituted", "refund-timeout-no-retry"],
  ["weather-timeout-silently-substituted", "write-denied-session-abandoned"],
  ["weather-timeout-silently-substituted", "fetch-503-answered-from-snippet"],
  ["weather-timeout-silently-substituted", "missing-module-not-installed"],
  ["email-send-failure-unreported", "failing-tool-called-again-unchanged"],
  ["email-send-failure-unreported", "disk-check-permission-error-dropped"],
  ["email-send-failure-unreported", "refund-timeout-no-retry"],
  ["email-send-failure-unreported", "write-denied-session-abandoned"],
  ["email-send-failure-unreported", "fetch-503-answered-from-snippet"],
  ["email-send-failure-unreported", "missing-module-not-installed"],
  ["failing-tool-called-again-unchanged", "disk-check-permission-error-dropped"],
  ["failing-tool-called-again-unchanged", "refund-timeout-no-retry"],
  ["failing-tool-called-again-unchanged", "write-denied-session-abandoned"],
  ["failing-tool-called-again-unchanged", "fetch-503-answered-from-snippet"],
  ["failing-tool-called-again-unchanged", "missing-module-not-installed"],
  ["disk-check-permission-error-dropped", "refund-timeout-no-retry"],
  ["disk-check-permission-error-dropped", "write-denied-session-abandoned"],
  ["disk-check-permission-error-dropped", "fetch-503-answered-from-snippet"],
  ["disk-check-permission-error-dropped", "missing-module-not-installed"],
  ["refund-timeout-no-retry", "write-denied-session-abandoned"],
  ["refund-timeout-no-retry", "fetch-503-answered-from-snippet"],
  ["refund-timeout-no-retry", "missing-module-not-installed"],
  ["write-denied-session-abandoned", "fetch-503-answered-from-snippet"],
  ["write-denied-session-abandoned", "missing-module-not-installed"],
  ["fetch-503-answered-from-snippet", "missing-module-not-installed"],
  // lewin · internal.fabricated_content (6 labels, 15 pairs)
  ["action-claimed-without-tool", "irrelevant-results-passed-as-confirmation"],
  ["action-claimed-without-tool", "price-used-before-search-result"],
  ["action-claimed-without-tool", "tool-output-staged-with-echo"],
  ["action-claimed-without-tool", "distances-invented-by-hand"],
  ["action-claimed-without-tool", "answer-from-unopened-page"],
  ["irrelevant-results-passed-as-confirmation", "price-used-before-search-result"],
  ["irrelevant-results-passed-as-confirmation", "tool-output-staged-with-echo"],
  ["irrelevant-results-passed-as-confirmation", "distances-invented-by-hand"],
  ["irrelevant-results-passed-as-confirmation", "answer-from-unopened-page"],
  ["price-used-before-search-result", "tool-output-staged-with-echo"],
  ["price-used-before-search-result", "distances-invented-by-hand"],
  ["price-used-before-search-result", "answer-from-unopened-page"],
  ["tool-output-staged-with-echo", "distances-invented-by-hand"],
  ["tool-output-staged-with-echo", "answer-from-unopened-page"],
  ["distances-invented-by-hand", "answer-from-unopened-page"],
  // lewin · internal.misread_observation (4 labels, 6 pairs)
  ["fare-total-miscomputed", "file-quoting-misread-before-edit"],
  ["fare-total-miscomputed", "count-taken-from-partial-screenshot"],
  ["fare-total-miscomputed", "string-order-rule-misread"],
  ["file-quoting-misread-before-edit", "count-taken-from-partial-screenshot"],
  ["file-quoting-misread-before-edit", "string-order-rule-misread"],
  ["count-taken-from-partial-screenshot", "string-order-rule-misread"],
  // aar · execution_drift.false_completion (4 labels, 6 pairs)
  ["verification-claimed-not-run", "fix-declared-working-on-failed-run"],
  ["verification-claimed-not-run", "submitted-without-running-code"],
  ["verification-claimed-not-run", "todo-marked-done-without-work"],
  ["fix-declared-working-on-failed-run", "submitted-without-running-code"],
  ["fix-declared-working-on-failed-run", "todo-marked-done-without-work"],
  ["submitted-without-running-code", "todo-marked-done-without-work"],
  // yerkes_dodson · over_aroused.retry_exhaustion (3 labels, 3 pairs)
  ["same-refusal-repeated", "clicks-repeated-on-unchanged-page"],
  ["same-refusal-repeated", "tests-resent-unchanged"],
  ["clicks-repeated-on-unchanged-page", "tests-resent-unchanged"],
  // johari · hidden.undisclosed_tool_caveat (3 labels, 3 pairs)
  ["denied-tool-swapped-silently", "masked-output-read-as-whole"],
  ["denied-tool-swapped-silently", "metric-gap-undisclosed"],
  ["masked-output-read-as-whole", "metric-gap-undisclosed"],
  // lewin · environmental.resource_exhaustion (4 labels, 6 pairs)
  ["search-quota-exhausted", "model-rate-limit-no-backoff"],
  ["search-quota-exhausted", "provider-overloaded-no-fallback"],
  ["search-quota-exhausted", "step-limit-reached"],
  ["model-rate-limit-no-backoff", "provider-overloaded-no-fallback"],
  ["model-rate-limit-no-backoff", "step-limit-reached"],
  ["provider-overloaded-no-fallback", "step-limit-reached"],
  // lewin · interactional.tool_contract_mismatch (2 labels, 1 pair)
  ["malformed-id-argument", "reply-format-broke-action-contract"],
  // lewin · no playbook (2 labels, 1 pair)
  ["invalid-api-key", "server-error-no-retry"]
]
