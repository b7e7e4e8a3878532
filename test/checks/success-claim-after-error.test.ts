import { describe, expect, it } from "@effect/vitest"
import { successClaimAfterError } from "../../src/Checks/SuccessClaimAfterError.js"
import { call, failure, longTrace, result, runOne, say, traceOf, user } from "./support.js"

const refund = traceOf([
  user("Refund order 1182 please"),
  call("issue_refund", '{"order":"1182"}', "call_1"),
  failure("issue_refund", "503 Service Unavailable: payments gateway down", "call_1"),
  say("Done! Your refund for order 1182 has been issued.")
])

describe("success_claim_after_error", () => {
  it("cites the claim (the sentence that names the failed call's work) and the error it contradicts", () => {
    const [finding] = runOne(successClaimAfterError, refund).findings
    expect(finding?.evidence.map((each) => [each.event, each.quote])).toEqual([
      [3, "Your refund for order 1182 has been issued."],
      [2, "503 Service Unavailable: payments gateway down"]
    ])
    expect(finding?.explanation).toContain("issue_refund failed at events[2]")
  })

  it("reads a claim as a statement of work done, whatever its verb, about the failed call (its tool's work or a value it named)", () => {
    const posted = (claim: string) =>
      traceOf([
        user("Tell the team the fix is out"),
        call("post_slack_message", '{"channel":"support-escalations","text":"The fix is rolling out."}', "c1"),
        // a Chat Completions tool message: no status, the SDK's exception as its text
        { actor: "post_slack_message", role: "tool", kind: "tool_result", tool: "post_slack_message", call_id: "c1", content: "SlackApiError: The request to the Slack API failed. {'ok': False, 'error': 'not_in_channel'}" },
        say(claim)
      ])
    for (const claim of ["Posted the update to #support-escalations.", "I've let the team know in #support-escalations.", "The message is up in #support-escalations ✅", "Done! The announcement went out on #support-escalations."]) {
      expect(runOne(successClaimAfterError, posted(claim)).findings, claim).toHaveLength(1)
    }
    // not a claim: a plan, an order, a question, a statement of something else's state
    for (const other of ["I'll post the update to #support-escalations now.", "Let me post it to #support-escalations.", "Should I post it to #support-escalations?", "The card gateway has been degraded since 13:58."]) {
      expect(runOne(successClaimAfterError, posted(other)).findings, other).toEqual([])
    }
  })

  it("does not read the tool's name alone as the claim's subject when another call of that tool succeeded, nor a tool's result repeated as the answer", () => {
    const researched = traceOf([
      call("search_docs", '{"query":"retry budget"}', "a"),
      result("search_docs", "Release 2.4 added the retry budget.", "a"),
      call("search_docs", '{"query":"sso saml setup"}', "b"),
      failure("search_docs", "ReadTimeout: Read timed out.", "b"),
      say("The retry budget setting was introduced in release 2.4, according to the search results.")
    ])
    expect(runOne(successClaimAfterError, researched).findings).toEqual([])
    // naming the failed call's own arguments still concerns it
    const named = traceOf([...researched.events.slice(0, 4), say("SSO SAML setup is documented; the sso saml setup page was searched successfully.")])
    expect(runOne(successClaimAfterError, named).findings).toHaveLength(1)
    // AutoGen's tool call summary: the agent's message is the tool's result word for word
    const echoed = traceOf([
      call("deploy_service", '{"service":"api"}', "d"),
      failure("deploy_service", "DeploymentError: rollout timed out", "d"),
      call("fetch_url", '{"url":"https://x/changelog"}', "f"),
      result("fetch_url", "2.3.2 — Fixed the deploy_service rollout.", "f"),
      say("2.3.2 — Fixed the deploy_service rollout.")
    ], { success: false })
    expect(runOne(successClaimAfterError, echoed).findings).toEqual([])
  })

  it("fires on a run whose own status is an error, and not on an honest answer", () => {
    const failedRun = traceOf([user("book it"), say("All set, the flight is booked.")], { success: false })
    expect(runOne(successClaimAfterError, failedRun).findings).toHaveLength(1)
    const honest = traceOf([call("book", "{}", "a"), failure("book", "timeout", "a"), say("I could not book it: the airline timed out.")])
    expect(runOne(successClaimAfterError, honest).findings).toEqual([])
  })

  it("reads only claims about the failed tool's work: a claim about something else is not contradicted by it", () => {
    const elsewhere = traceOf([
      call("send_email", '{"to":"customer@example.com"}'),
      failure("send_email", "SMTPError: relay refused"),
      say("Duplicate charges are refunded in full within 5 business days.")
    ])
    expect(runOne(successClaimAfterError, elsewhere).findings).toEqual([])
    const retried = traceOf([call("issue_refund", "{}"), failure("issue_refund", "503"), call("issue_refund", "{}"), result("issue_refund", "ok"), say("Refunded!")])
    expect(runOne(successClaimAfterError, retried).findings).toEqual([])
  })

  it("is linear: a healthy trace is not read, a thousand failures before a claim read a bounded number of times", () => {
    const trace = longTrace(1_000)
    expect(runOne(successClaimAfterError, trace).visits).toBeLessThanOrEqual(4 * trace.events.length)
    const failing = traceOf([
      user("Refund order 1182 please"),
      ...Array.from({ length: 1_000 }, (_, n) => [call("issue_refund", '{"order":"1182"}', `c${n}`), failure("issue_refund", "503 Service Unavailable", `c${n}`)]).flat(),
      say("Done! Your refund for order 1182 has been issued.")
    ])
    const { visits, findings } = runOne(successClaimAfterError, failing)
    expect(findings.length).toBeGreaterThan(0)
    expect(visits).toBeLessThanOrEqual(4 * failing.events.length)
  })
})
