/**
 * Seeded secrets and personal data for the redaction end-to-end test (DECISIONS §20): ten kinds
 * of secrets plus an email and a phone number, each with the needles that must never be seen
 * again once redaction is on, and the fixtures of every format family with those values written
 * into strings the normalizer reads as content.
 */
import { Predicate } from "effect"
import { createHmac } from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

export interface Seed {
  /** The placeholder kind redaction gives it (`[aws_key:3f9a1c]`). */
  readonly kind: string
  readonly class: "secrets" | "pii"
  /** What is written into the trace's text. */
  readonly text: string
  /** Substrings that must appear nowhere once redacted: the value, and its distinctive core (a renderer may escape `_`). */
  readonly needles: ReadonlyArray<string>
}

const base64url = (text: string) => Buffer.from(text).toString("base64url")

/** A real HS256 JWT: base64url header and payload, and the HMAC signature over them. */
const jwt = (() => {
  const signed = `${base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${base64url(JSON.stringify({ sub: "user-4711", name: "Seeded Person", iat: 1717000000 }))}`
  return `${signed}.${createHmac("sha256", "seed-signing-key").update(signed).digest("base64url")}`
})()
const [, jwtPayload = "", jwtSignature = ""] = jwt.split(".")

export const SEEDS: ReadonlyArray<Seed> = [
  { kind: "aws_key", class: "secrets", text: "aws key AKIAQ7ZSEEDX4KWJ2MPL in use", needles: ["AKIAQ7ZSEEDX4KWJ2MPL", "Q7ZSEEDX4KWJ2MPL"] },
  {
    kind: "github_token",
    class: "secrets",
    text: "token ghp_S33dGitHubT0kenAbCdEfGh1jKlMnOpQrStUv pushed",
    needles: ["ghp_S33dGitHubT0kenAbCdEfGh1jKlMnOpQrStUv", "S33dGitHubT0kenAbCdEfGh1jKlMnOpQrStUv"]
  },
  {
    kind: "slack_token",
    class: "secrets",
    text: "slack xoxb-2046813579-5120987634-S33dSlackT0kenQwErTy posted",
    needles: ["xoxb-2046813579-5120987634-S33dSlackT0kenQwErTy", "S33dSlackT0kenQwErTy"]
  },
  {
    kind: "openai_key",
    class: "secrets",
    text: "openai sk-proj-S33dOpenAiKeyZx9Vb8Nm7Lk6Jh5Gf4Ds3Aq2We1Rt set",
    needles: ["sk-proj-S33dOpenAiKeyZx9Vb8Nm7Lk6Jh5Gf4Ds3Aq2We1Rt", "S33dOpenAiKeyZx9Vb8Nm7Lk6Jh5Gf4Ds3Aq2We1Rt"]
  },
  {
    kind: "anthropic_key",
    class: "secrets",
    text: "anthropic sk-ant-api03-S33dAnthropicKeyPo9Iu8Yt7Re6Wq5As4Df3Gh2Jk1-Lz0AA set",
    needles: ["sk-ant-api03-S33dAnthropicKeyPo9Iu8Yt7Re6Wq5As4Df3Gh2Jk1-Lz0AA", "S33dAnthropicKeyPo9Iu8Yt7Re6Wq5As4Df3Gh2Jk1"]
  },
  {
    kind: "stripe_key",
    class: "secrets",
    text: "stripe sk_live_S33dStripeKey4eC39HqLyjWDarjt charged",
    needles: ["sk_live_S33dStripeKey4eC39HqLyjWDarjt", "S33dStripeKey4eC39HqLyjWDarjt"]
  },
  { kind: "jwt", class: "secrets", text: `session ${jwt} issued`, needles: [jwt, jwtPayload, jwtSignature] },
  {
    kind: "bearer",
    class: "secrets",
    text: "header Authorization: Bearer S33dBearer7q2Xk9Lm4Pz8Rt3Vn6 sent",
    needles: ["S33dBearer7q2Xk9Lm4Pz8Rt3Vn6"]
  },
  {
    kind: "password",
    class: "secrets",
    text: "db postgres://app:S33dPgPassw0rd9Hq@localhost:5432/prod opened",
    needles: ["S33dPgPassw0rd9Hq"]
  },
  { kind: "email", class: "pii", text: "mail jane.s33dq7r4nd0m@acme-corp.io please", needles: ["jane.s33dq7r4nd0m@acme-corp.io", "s33dq7r4nd0m"] },
  { kind: "phone", class: "pii", text: "call +1 415 555 0134 today", needles: ["+1 415 555 0134", "415 555 0134"] }
]

export const SECRET_SEEDS = SEEDS.filter((seed) => seed.class === "secrets")
export const PII_SEEDS = SEEDS.filter((seed) => seed.class === "pii")
export const SECRET_KINDS = SECRET_SEEDS.map((seed) => seed.kind).sort()

/** The seeds spread over three strings (a user message, a tool call's arguments, a tool result, where the trace has them). */
const CHUNKS: ReadonlyArray<string> = [0, 1, 2].map((part) =>
  SEEDS.filter((_, i) => i % 3 === part)
    .map((seed) => seed.text)
    .join(" \n ")
)

/** The needles of these seeds found in a text (none: nothing leaked). */
export const leaked = (text: string, seeds: ReadonlyArray<Seed> = SEEDS): Array<string> =>
  seeds.flatMap((seed) => seed.needles.filter((needle) => text.includes(needle)).map((needle) => `${seed.kind}: ${needle}`))

/** The kinds of these seeds whose value a text does not hold (none: it carries every one). */
export const carriesAll = (text: string, seeds: ReadonlyArray<Seed> = SEEDS): Array<string> =>
  seeds.filter((seed) => !text.includes(seed.needles[0] ?? "")).map((seed) => seed.kind)

// ---------------------------------------------------------------------------------------------
// Seeding a fixture

/** A string holding a JSON object or array (arguments, attributes), parsed; else undefined. */
const parsedJson = (value: string): unknown => {
  const trimmed = value.trim()
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return undefined
  try {
    const parsed: unknown = JSON.parse(trimmed)
    return Predicate.isRecord(parsed) || Array.isArray(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/** Rewrites every string leaf of a value, strings holding JSON (arguments, attributes) read and written back as JSON. */
const mapLeaves = (value: unknown, f: (leaf: string, key: string | undefined) => string, key?: string): unknown => {
  if (typeof value === "string") {
    const inner = parsedJson(value)
    return inner === undefined ? f(value, key) : JSON.stringify(mapLeaves(inner, f, key))
  }
  if (Array.isArray(value)) return value.map((item) => mapLeaves(item, f, key))
  if (Predicate.isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, mapLeaves(item, f, k)]))
  return value
}

/**
 * Keys whose strings are structure (ids, roles, names, times, tools and actors), never content:
 * redaction leaves the normalized trace's actor and tool names alone by design (Redaction/Trace.ts).
 */
const STRUCTURAL = /(^|[_.])(id|type|role|name|model|timestamp|time|uuid|status|tool|actor|function|sender|source)$/i

/** A fixture seeded: the body, and the leaf texts that carry the seeds (in chunk order). */
export interface Seeded {
  readonly body: unknown
  readonly chosen: ReadonlyArray<string>
}

/**
 * The fixture with seeds appended to strings the normalizer reads as content: the first three
 * distinct string leaves (or leaves inside JSON-encoded strings, written back as JSON) that equal
 * one of the trace's content strings, then those that are part of one, each get a third of the
 * seeds (the last one gets what is left when there are fewer); every leaf holding the same text
 * gets the same seeds, so history repeated across model calls still reads as one. `skip`: leaves
 * found not to reach the content (a field the normalizer does not read). Undefined when no leaf is content.
 */
export const seedFixture = (fixture: unknown, contents: ReadonlyArray<string>, skip: ReadonlyArray<string> = []): Seeded | undefined => {
  const trimmed = contents.map((content) => content.trim())
  const rank = (leaf: string, key: string | undefined): number | undefined => {
    const text = leaf.trim()
    if (text.length < 8 || skip.includes(leaf) || (key !== undefined && STRUCTURAL.test(key))) return undefined
    if (trimmed.includes(text)) return 0
    const escaped = JSON.stringify(text).slice(1, -1)
    return contents.some((content) => content.includes(text) || content.includes(escaped)) ? 1 : undefined
  }
  const candidates: Array<{ readonly leaf: string; readonly rank: number }> = []
  mapLeaves(fixture, (leaf, key) => {
    const at = rank(leaf, key)
    if (at !== undefined && !candidates.some((candidate) => candidate.leaf === leaf)) candidates.push({ leaf, rank: at })
    return leaf
  })
  const chosen = candidates
    .filter((candidate) => candidate.rank === 0)
    .concat(candidates.filter((candidate) => candidate.rank === 1))
    .slice(0, CHUNKS.length)
    .map((candidate) => candidate.leaf)
  if (chosen.length === 0) return undefined
  const seedsOf = new Map(chosen.map((text, i) => [text, (i === chosen.length - 1 ? CHUNKS.slice(i) : [CHUNKS[i] ?? ""]).join(" \n ")]))
  const body = mapLeaves(fixture, (leaf, key) => {
    const seeds = seedsOf.get(leaf)
    return seeds === undefined || (key !== undefined && STRUCTURAL.test(key)) ? leaf : `${leaf} ${seeds}`
  })
  return { body, chosen }
}

/** The chosen leaf that carries a seed (seed i is in chunk i mod 3). */
export const leafOfSeed = (seeded: Seeded, kind: string): string | undefined => {
  const index = SEEDS.findIndex((seed) => seed.kind === kind)
  return seeded.chosen[Math.min(index % CHUNKS.length, seeded.chosen.length - 1)]
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "traces")

/** One small fixture per format family (JSON Lines read as the array of their records). */
export const FAMILY_FIXTURES: ReadonlyArray<readonly [family: string, path: string]> = [
  ["otel", "otel/otel_genai_client_span_tool_calls.attributes.json"],
  ["openinference", "openinference/openinference_client_span_tool_calls.attributes.json"],
  ["langsmith", "langsmith/runtree-batch-1.json"],
  ["trajectory", "trajectory/mini-swe-agent.traj.json"],
  ["claude_code", "claude_code/todowrite_examples.jsonl"],
  ["codex", "codex/codex-0.169-exec-json.jsonl"],
  ["langfuse", "langfuse/openai-agents-2025-09-30.json"],
  ["smolagents", "smolagents/gpt-4o__code__math__2025-09-08.head2.jsonl"],
  ["mast", "mast/MAD_human_labelled_dataset.04-metagpt-programdev.json"],
  ["inspect", "inspect/security-guide.json"],
  ["tau_bench", "tau_bench/tau-bench-gpt-4o-airline.json"],
  ["gemini_cli", "gemini_cli/message-types.session.json"],
  ["autogen", "autogen/core-llm-history.json"],
  ["anthropic", "anthropic/response-message.json"],
  ["openai", "openai/chat-tool-calls.json"]
]

export const readFixture = (path: string): unknown => {
  const text = readFileSync(join(FIXTURES, path), "utf8")
  return path.endsWith(".jsonl")
    ? text
      .split("\n")
      .filter((line) => line.trim().length > 0)
      .map((line): unknown => JSON.parse(line))
    : JSON.parse(text)
}

/** Every file under a directory, recursively, with its bytes read as UTF-8 (and Latin-1, for binary stores). */
export const filesUnder = (dir: string): Array<{ readonly path: string; readonly text: string }> =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).flatMap((name) => {
    const path = join(dir, name)
    if (!statSync(path).isFile()) return []
    const bytes = readFileSync(path)
    return [{ path, text: `${bytes.toString("utf8")}\n${bytes.toString("latin1")}` }]
  })
