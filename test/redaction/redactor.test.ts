/**
 * The redactor's own behaviour (src/Redaction, DECISIONS §20): what a trace keeps and loses,
 * placeholders per scope and key, long hashes where short ones meet, the operator's rules and
 * SVC_REDACT's values. Recall and false positives are measured in recall.test.ts; every surface
 * end to end in end-to-end.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { bodyFingerprints } from "../../src/Cache/CachedReplies.js"
import { parseRedact } from "../../src/Config.js"
import { parseRules } from "../../src/Redaction/CustomRules.js"
import { makeRedactor, PLACEHOLDER } from "../../src/Redaction/Redactor.js"
import { RULES } from "../../src/Redaction/Rules.js"
import { redactRecord, redactTrace } from "../../src/Redaction/Trace.js"
import type { NormalizedTrace } from "../../src/Traces/Model.js"

const KEY = new Uint8Array(32).fill(7)
const secrets = makeRedactor(KEY, { classes: new Set(["secrets"]) })
const both = makeRedactor(KEY, { classes: new Set(["secrets", "pii"]) })
const AWS = "AKIAZ7QH2LKD3MNXW4PB"
const EMAIL = "grace.hopper@navy.example"

const trace: NormalizedTrace = {
  id: "4bf92f3577b34da6a3ce929d0e0e4736",
  task: `Rotate the key ${AWS} and tell ${EMAIL}`,
  outcome: "done",
  success: true,
  agents: ["ops"],
  events: [
    { actor: "user", role: "user", kind: "message", content: `Rotate the key ${AWS} and tell ${EMAIL}`, source: "span:00f067aa0ba902b7/input[0]", timestamp: "2025-07-01T10:00:00.123Z" },
    { actor: "ops", role: "agent", kind: "tool_call", tool: "iam", content: JSON.stringify({ access_key_id: AWS, api_key: "q8Zt2LmX9vB4nR7wK3pD", notify: EMAIL }), source: "span:00f067aa0ba902b8" },
    { actor: "iam", role: "tool", kind: "tool_result", tool: "iam", content: "rotated", source: "span:00f067aa0ba902b9" }
  ],
  skipped: 0
}

describe("a trace redacted (SVC_REDACT=secrets,pii)", () => {
  const redacted = redactTrace(both.forScope("shared"))(trace)

  it("replaces content, JSON inside strings included, and counts by kind", () => {
    const text = JSON.stringify(redacted)
    expect(text).not.toContain(AWS)
    expect(text).not.toContain(EMAIL)
    expect(text).not.toContain("q8Zt2LmX9vB4nR7wK3pD")
    expect(redacted.redactions).toEqual({ aws_key: 3, email: 3, secret: 1 })
    // the tool's arguments are still JSON, keys as they were
    const args: unknown = JSON.parse(redacted.events[1]?.content ?? "")
    expect(Object.keys(args ?? {})).toEqual(["access_key_id", "api_key", "notify"])
  })

  it("reads names too (a native shape's tool, a participant's name), each value the same placeholder everywhere", () => {
    const named: NormalizedTrace = {
      ...trace,
      agents: [EMAIL],
      events: [{ actor: EMAIL, role: "agent", kind: "tool_call", tool: `query ${AWS}`, to: EMAIL, content: `ask ${EMAIL}`, source: "steps[0]" }]
    }
    const out = redactTrace(both.forScope("shared"))(named)
    const event = out.events[0]
    expect(JSON.stringify(out)).not.toContain(EMAIL)
    expect(event?.tool).toMatch(/^query \[aws_key:[0-9a-f]{6}\]$/)
    expect(new Set([out.agents[0], event?.actor, event?.to, event?.content.slice(4)]).size).toBe(1)
  })

  it("redacts the structure's text too (DECISIONS §23): status messages and codes, the declared tools' descriptions and schemas", () => {
    const structured: NormalizedTrace = {
      ...trace,
      tools: [{ name: "fetch_invoice", description: `Bills ${EMAIL}`, parameters: { type: "object", properties: { key: { type: "string", default: AWS } } } }],
      events: [{
        actor: "fetch_invoice",
        role: "tool",
        kind: "tool_result",
        tool: "fetch_invoice",
        content: "",
        status: "error",
        status_code: "AuthError",
        status_message: `401: key ${AWS} was refused for ${EMAIL}`,
        call_id: "call_7",
        finish_reason: "stop",
        source: "span:01"
      }]
    }
    const out = redactTrace(both.forScope("shared"))(structured)
    const text = JSON.stringify(out)
    expect(text).not.toContain(AWS)
    expect(text).not.toContain(EMAIL)
    expect(out.events[0]?.status_message).toMatch(/^401: key \[aws_key:[0-9a-f]{6}\] was refused for \[email:[0-9a-f]{6}\]$/)
    // structure stays as it was
    expect(out.events[0]).toMatchObject({ status: "error", status_code: "AuthError", call_id: "call_7", finish_reason: "stop", source: "span:01" })
    expect(out.tools?.[0]?.name).toBe("fetch_invoice")
  })

  it("never touches ids, timestamps, sources, or names that hold nothing to redact", () => {
    expect(redacted.id).toBe(trace.id)
    expect(redacted.events.map(({ actor, kind, role, source, timestamp, tool }) => ({ actor, role, kind, tool, source, timestamp }))).toEqual(
      trace.events.map(({ actor, kind, role, source, timestamp, tool }) => ({ actor, role, kind, tool, source, timestamp }))
    )
  })

  it("writes the same value as the same placeholder within the trace, and is idempotent", () => {
    const placeholders = redacted.task.match(PLACEHOLDER) ?? []
    expect(placeholders).toHaveLength(2)
    for (const placeholder of placeholders) expect(redacted.events[0]?.content).toContain(placeholder)
    expect(redactTrace(both.forScope("shared"))(redacted)).toBe(redacted)
  })

  it("leaves a trace with nothing to redact as it is (the same object)", () => {
    const clean: NormalizedTrace = { ...trace, task: "Sum the ledger", events: [{ actor: "user", role: "user", kind: "message", content: "Sum the ledger", source: "messages[0]" }] }
    expect(redactTrace(both.forScope("shared"))(clean)).toBe(clean)
  })

  it("keeps personal data with SVC_REDACT=secrets", () => {
    const only = redactTrace(secrets.forScope("shared"))(trace)
    expect(only.task).toContain(EMAIL)
    expect(only.task).not.toContain(AWS)
  })
})

describe("placeholders", () => {
  const of = (redactor: ReturnType<typeof makeRedactor>, scope: string) => redactor.forScope(scope).pass().text(`key ${AWS}`)

  it("are the same across passes and redactors with the same key and scope, and differ across scopes and keys", () => {
    const other = makeRedactor(new Uint8Array(32).fill(8), { classes: new Set(["secrets"]) })
    expect(of(secrets, "shared")).toBe(of(makeRedactor(KEY, { classes: new Set(["secrets"]) }), "shared"))
    expect(of(secrets, "shared")).not.toBe(of(secrets, "key:alice"))
    expect(of(secrets, "shared")).not.toBe(of(other, "shared"))
    expect(of(secrets, "shared")).toMatch(/^key \[aws_key:[0-9a-f]{6}\]$/)
  })

  it("never stand for two values in one pass: where short hashes meet, the later value gets a longer one", () => {
    const pass = both.forScope("shared").pass()
    // 20,000 distinct emails: 6 hex digits (24 bits) meet many times over at this count
    const values = Array.from({ length: 20_000 }, (_, i) => `user${i}@example.org`)
    const placeholders = pass.texts(values)
    expect(new Set(placeholders).size).toBe(values.length)
    expect(placeholders.some((placeholder) => /^\[email:[0-9a-f]{12}\]$/.test(placeholder))).toBe(true)
    expect(pass.counts()).toEqual({ email: 20_000 })
  })
})

describe("AWS secret access keys (no form of their own: 40 characters of base64)", () => {
  const KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
  const redact = (text: string) => secrets.forScope("shared").pass().text(text)

  it("are found by the words before them, in free text too, where no `=` or `:` stands", () => {
    for (const text of [
      `aws configure set aws_secret_access_key ${KEY}`,
      `The AWS secret access key is ${KEY}, keep it safe.`,
      `aws sts assume-role ... --aws-secret-access-key ${KEY}`,
      `|  SecretAccessKey |  ${KEY}  |`,
      `AWS_SECRET_ACCESS_KEY=${KEY}`
    ]) {
      const out = redact(text)
      expect(out, text).not.toContain(KEY)
      expect(out, text).toMatch(/\[aws_secret_key:[0-9a-f]{6}\]/)
    }
  })

  it("are not seen without those words, nor in a value that is no random base64", () => {
    for (const text of [`I used ${KEY} yesterday`, "the secret access key rotation is documented at aws/docs/iam/rotating-access-keys-for-users"]) {
      expect(redact(text), text).toBe(text)
    }
  })
})

describe("a native shape and hints", () => {
  it("has every string value read (values under secret-like keys as secrets), never a key", () => {
    const { counts, value } = redactRecord(secrets.forScope("shared"), {
      steps: [{ type: "tool_call", content: `aws configure set aws_access_key_id ${AWS}` }],
      env: { DATABASE_PASSWORD: "correct-horse-battery", HOME: "/home/ops" },
      [AWS]: "a key is never redacted"
    })
    expect(JSON.stringify(value)).not.toContain("correct-horse-battery")
    expect(Object.keys(value)).toEqual(["steps", "env", AWS])
    expect(counts).toEqual({ aws_key: 1, secret: 1 })
  })
})

describe("the operator's rules (SVC_REDACT_RULES)", () => {
  const builtIn = new Set(RULES.map((rule) => rule.kind))
  const parsed = (text: string) => parseRules(text, "rules.txt", builtIn)

  it("adds named kinds, run on the linear-time engine", () => {
    const rules = parsed("# ids\nemployee_id = EMP-\\d{6}\n\ncatastrophic = (a+)+b\n")
    if (Either.isLeft(rules)) return expect.fail(rules.left)
    const redactor = makeRedactor(KEY, { classes: new Set(["secrets"]), extra: rules.right })
    const pass = redactor.forScope("shared").pass()
    expect(pass.text("paid EMP-123456 today")).toMatch(/^paid \[employee_id:[0-9a-f]{6}\] today$/)
    // exponential on a backtracking engine; linear here (no timing threshold: it finishes)
    expect(pass.text("a".repeat(100_000))).toBe("a".repeat(100_000))
  })

  it.each([
    ["employee id = x", "rules.txt:1: the name `employee id` is not 1-32 of a-z, 0-9 and _ starting with a letter"],
    ["a = (x)\\1", "rules.txt:1: cannot run in linear time (no back-references or lookaround)"],
    ["ok = x\nb = (?<=a)b", "rules.txt:2: cannot run in linear time (no back-references or lookaround)"],
    ["empty = x*", "rules.txt:1: the expression matches the empty string"],
    ["email = x", "rules.txt:1: `email` is a built-in kind; name the rule otherwise"],
    ["twice = x\ntwice = y", "rules.txt:2: the name `twice` is used twice"],
    ["broken = (x", "rules.txt:1: Invalid regular expression: /(x/l: Unterminated group"],
    ["no equals sign", "rules.txt:1: expected `name = expression`"]
  ])("refuses %j naming the line", (text, message) => {
    expect(parsed(text)).toEqual(Either.left(message))
  })
})

describe("SVC_REDACT", () => {
  it.each([
    ["secrets", ["secrets"]],
    ["secrets,pii", ["secrets", "pii"]],
    ["PII", ["secrets", "pii"]],
    [" pii , secrets ", ["secrets", "pii"]],
    ["off", []],
    ["none", []],
    ["", ["secrets"]]
  ])("%j reads as %j", (raw, classes) => {
    expect(parseRedact(raw.trim())).toEqual(Option.some(classes))
  })

  it.each(["on", "secrets,off", "pii;secrets", "all"])("%j is refused", (raw) => {
    expect(parseRedact(raw)).toEqual(Option.none())
  })
})

describe("JSON inside a string", () => {
  it("nested deeper than a walk may go is scanned as text, not walked (no stack overflow)", () => {
    const deep = `${"[".repeat(200_000)}"${AWS}"${"]".repeat(200_000)}`
    const redacted = secrets.forScope("shared").pass().text(deep)
    expect(redacted).not.toContain(AWS)
    expect(redacted).toMatch(/\[aws_key:[0-9a-f]{6}\]/)
  })
})

describe("the edge's fingerprint of raw bodies (src/Cache/CachedReplies.ts)", () => {
  it("is an HMAC under each process's own key: another process, or a plain hash, never gives the same", () => {
    const body = new TextEncoder().encode(JSON.stringify({ trace: { steps: [{ type: "tool_call", content: `export AWS_ACCESS_KEY_ID=${AWS}` }] } }))
    const one = bodyFingerprints(randomBytes(32))
    const other = bodyFingerprints(randomBytes(32))
    const print = one("shared", "lewin", body)
    expect(print).toMatch(/^[0-9a-f]{64}$/)
    expect(one("shared", "lewin", body)).toBe(print)
    expect(other("shared", "lewin", body)).not.toBe(print)
    const plain = createHash("sha256").update("shared\u0000lewin").update("\u0000").update(body).digest("hex")
    expect(print).not.toBe(plain)
    expect(print).not.toBe(createHash("sha256").update(body).digest("hex"))
  })
})
