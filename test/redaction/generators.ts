/**
 * Positives and negatives for measuring redaction (DECISIONS §20, the recall issue), written from
 * the formats' public definitions and nothing in src/Redaction: a detector measured on values its
 * own expressions produced would only measure itself.
 *
 * - Every generator takes a seed (mulberry32), so a run is repeatable and a miss can be replayed.
 * - A positive is a value in the sentence or JSON it would sit in inside a trace, with the
 *   substrings that must be gone afterwards: the value, and for values printed in groups (cards,
 *   IBANs, phones) each group of four or more characters too, so half a redaction is a miss. For a
 *   URL's credentials only the password is one (the user stays).
 * - JWTs are signed here (HS256 with an HMAC, RS256 and ES256 with generated keys); PEM keys come
 *   from `openssl genpkey` (a few runs, then reused in different surroundings) and node's own key
 *   generator.
 */
import { spawnSync } from "node:child_process"
import { createHmac, generateKeyPairSync, sign, type KeyObject } from "node:crypto"

// --- a seeded generator ----------------------------------------------------------------------

export interface Random {
  /** In [0, 1). */
  readonly next: () => number
  /** In [min, max], both included. */
  readonly int: (min: number, max: number) => number
  readonly pick: <T>(items: ReadonlyArray<T>) => T
  readonly chars: (alphabet: string, length: number) => string
  readonly chance: (probability: number) => boolean
}

/** mulberry32: small, fast, and good enough to pick test data. */
export const makeRandom = (seed: number): Random => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  const pick = <T>(items: ReadonlyArray<T>): T => {
    const item = items[Math.floor(next() * items.length)]
    if (item === undefined) throw new Error("pick from an empty list")
    return item
  }
  const chars = (alphabet: string, length: number): string => {
    let out = ""
    for (let i = 0; i < length; i++) out += alphabet.charAt(Math.floor(next() * alphabet.length))
    return out
  }
  return { next, int, pick, chars, chance: (probability) => next() < probability }
}

export const DIGITS = "0123456789"
export const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
export const LOWER = "abcdefghijklmnopqrstuvwxyz"
export const BASE62 = DIGITS + UPPER + LOWER
export const BASE64URL = BASE62 + "-_"
export const HEX = "0123456789abcdef"

// --- the kinds ---------------------------------------------------------------------------------

export const SECRET_KINDS = [
  "private_key",
  "jwt",
  "anthropic_key",
  "openai_key",
  "aws_key",
  "aws_secret_key",
  "github_token",
  "gitlab_token",
  "slack_token",
  "slack_webhook",
  "stripe_key",
  "google_api_key",
  "bearer",
  "password",
  "secret"
] as const
export const PII_KINDS = ["email", "iban", "card", "phone", "ipv4", "ipv6"] as const

export type SecretKind = (typeof SECRET_KINDS)[number]
export type PiiKind = (typeof PII_KINDS)[number]
export type Kind = SecretKind | PiiKind
export const KINDS: ReadonlyArray<Kind> = [...SECRET_KINDS, ...PII_KINDS]

const PII_SET: ReadonlySet<string> = new Set(PII_KINDS)
export const isPiiKind = (kind: string): boolean => PII_SET.has(kind)

/** A value in its surroundings, and what must be gone once it is redacted. */
export interface Positive {
  readonly kind: Kind
  readonly text: string
  readonly secrets: ReadonlyArray<string>
}

/** A value in its surroundings: `{{v}}` marks where it goes. */
const place = (template: string, value: string): string => template.split("{{v}}").join(value)

/** A value inside a JSON string (a tool's arguments): placed in the template, then written as JSON. */
const positive = (kind: Kind, text: string, secrets: ReadonlyArray<string>): Positive => ({ kind, text, secrets })

/** The groups of four characters or more a printed value is split into (`4111 1111 ...`). */
const groupsOf = (printed: string): Array<string> => printed.split(/[ .()\-/]+/).filter((group) => group.length >= 4)

/** A token and its last 8 characters (a redaction that stops early leaves the tail). */
const tokenSecrets = (token: string): Array<string> => [token, token.slice(-8)]

// --- secrets -----------------------------------------------------------------------------------

const TOKEN_SENTENCES: ReadonlyArray<string> = [
  "{{v}}",
  "I found the key {{v}} in the logs; please rotate it.",
  "The deploy failed with token {{v}} being rejected.",
  "Here is the value you asked for: {{v}}",
  "config.yaml:\n  credentials:\n    key: \"{{v}}\"\n",
  "> Using {{v}} for the request\n",
  "Saved ({{v}}) to the vault.",
  "`{{v}}` is the one in production."
]

/** The token in a sentence, an env line or a tool's JSON arguments (names from the provider's own docs). */
const tokenCase = (random: Random, kind: SecretKind, token: string, names: ReadonlyArray<string>): Positive => {
  const name = random.pick(names)
  const form = random.int(0, 5)
  const text =
    form === 0 ? place(random.pick(TOKEN_SENTENCES), token)
    : form === 1 ? `export ${name}=${token}`
    : form === 2 ? `${name}="${token}"`
    : form === 3 ? JSON.stringify({ command: `${name}=${token} ./deploy.sh --env prod` })
    : form === 4 ? JSON.stringify({ tool: "write_file", path: ".env", content: `# local\n${name}=${token}\nDEBUG=false\n` })
    : `os.environ["${name}"] = "${token}"`
  return positive(kind, text, tokenSecrets(token))
}

const awsKey = (random: Random): Positive => {
  const key = random.pick(["AKIA", "AKIA", "AKIA", "ASIA"]) + random.chars(UPPER + "234567", 16)
  const form = random.int(0, 4)
  if (form === 0) return positive("aws_key", `export AWS_ACCESS_KEY_ID=${key}`, tokenSecrets(key))
  if (form === 1) return positive("aws_key", `[default]\naws_access_key_id = ${key}\nregion = us-east-1\n`, tokenSecrets(key))
  if (form === 2) return positive("aws_key", JSON.stringify({ Credentials: { AccessKeyId: key, Expiration: "2025-01-01T00:00:00Z" } }), tokenSecrets(key))
  return tokenCase(random, "aws_key", key, ["AWS_ACCESS_KEY_ID", "aws_access_key_id"])
}

/** An AWS secret access key (40 characters of base64) where AWS's own tools and docs write one, free text included. */
const awsSecretKey = (random: Random): Positive => {
  const key = random.chars(UPPER + LOWER + DIGITS + "/+", 40)
  const id = `AKIA${random.chars(UPPER + "234567", 16)}`
  const text = place(
    random.pick([
      "aws configure set aws_secret_access_key {{v}}",
      `[default]\naws_access_key_id = ${id}\naws_secret_access_key = {{v}}\nregion = eu-west-1\n`,
      "export AWS_SECRET_ACCESS_KEY={{v}}",
      "The AWS secret access key is {{v}}, keep it safe.",
      "aws sts get-session-token ... --aws-secret-access-key {{v}} --region us-east-1",
      `|  AccessKeyId     |  ${id}  |\n|  SecretAccessKey |  {{v}}  |`,
      JSON.stringify({ Credentials: { AccessKeyId: id, SecretAccessKey: "{{v}}", SessionToken: "FwoGZXIvYXdzEBYaDH" } }),
      JSON.stringify({ command: "AWS_SECRET_ACCESS_KEY='{{v}}' aws s3 ls" }),
      "secret access key: {{v}}"
    ]),
    key
  )
  return positive("aws_secret_key", text, tokenSecrets(key))
}

const githubToken = (random: Random): Positive => {
  const token = random.chance(0.6)
    ? `${random.pick(["ghp", "gho", "ghu", "ghs", "ghr"])}_${random.chars(BASE62, 36)}`
    : `github_pat_${random.chars(BASE62, 22)}_${random.chars(BASE62, 59)}`
  if (random.chance(0.2)) {
    return positive("github_token", `git clone https://x-access-token:${token}@github.com/acme/api.git`, tokenSecrets(token))
  }
  if (random.chance(0.2)) {
    return positive("github_token", `curl -H "Authorization: token ${token}" https://api.github.com/user`, tokenSecrets(token))
  }
  return tokenCase(random, "github_token", token, ["GITHUB_TOKEN", "GH_TOKEN", "GITHUB_PAT"])
}

const gitlabToken = (random: Random): Positive => {
  const token = `glpat-${random.chars(BASE64URL, 20)}`
  if (random.chance(0.2)) {
    return positive("gitlab_token", `curl --header "PRIVATE-TOKEN: ${token}" "https://gitlab.example.com/api/v4/projects"`, tokenSecrets(token))
  }
  return tokenCase(random, "gitlab_token", token, ["GITLAB_TOKEN", "CI_JOB_TOKEN", "GL_TOKEN"])
}

const slackToken = (random: Random): Positive => {
  const prefix = random.pick(["xoxb", "xoxb", "xoxp"])
  const token =
    prefix === "xoxb"
      ? `xoxb-${random.chars(DIGITS, random.int(10, 13))}-${random.chars(DIGITS, random.int(10, 13))}-${random.chars(BASE62, 24)}`
      : `xoxp-${random.chars(DIGITS, random.int(10, 13))}-${random.chars(DIGITS, random.int(10, 13))}-${random.chars(DIGITS, random.int(10, 13))}-${random.chars(HEX, 32)}`
  return tokenCase(random, "slack_token", token, ["SLACK_BOT_TOKEN", "SLACK_TOKEN", "SLACK_USER_TOKEN"])
}

const slackWebhook = (random: Random): Positive => {
  const secret = random.chars(BASE62, 24)
  const path = `T${random.chars(UPPER + DIGITS, random.int(8, 10))}/B${random.chars(UPPER + DIGITS, random.int(8, 10))}/${secret}`
  const url = `https://hooks.slack.com/services/${path}`
  const form = random.int(0, 3)
  const text =
    form === 0 ? `curl -X POST -H 'Content-type: application/json' --data '{"text":"deployed"}' ${url}`
    : form === 1 ? `SLACK_WEBHOOK_URL=${url}`
    : form === 2 ? JSON.stringify({ name: "notify", arguments: { webhook: url, text: "Build #42 passed" } })
    : `Posting the summary to ${url} now.`
  return positive("slack_webhook", text, [path, secret])
}

const stripeKey = (random: Random): Positive => {
  const key = `${random.pick(["sk_live_", "sk_test_", "rk_live_", "rk_test_"])}${random.chars(BASE62, random.int(24, 99))}`
  if (random.chance(0.2)) return positive("stripe_key", `curl https://api.stripe.com/v1/charges -u ${key}: -d amount=2000`, tokenSecrets(key))
  return tokenCase(random, "stripe_key", key, ["STRIPE_SECRET_KEY", "STRIPE_API_KEY", "STRIPE_KEY"])
}

const openaiKey = (random: Random): Positive => {
  const key = random.chance(0.8)
    ? `sk-proj-${random.chars(BASE64URL, random.int(48, 156))}`
    : `sk-${random.pick(["svcacct", "admin"])}-${random.chars(BASE64URL, random.int(48, 120))}`
  if (random.chance(0.2)) {
    return positive("openai_key", `curl https://api.openai.com/v1/models -H "Authorization: Bearer ${key}"`, tokenSecrets(key))
  }
  return tokenCase(random, "openai_key", key, ["OPENAI_API_KEY", "OPENAI_KEY", "openai_api_key"])
}

const anthropicKey = (random: Random): Positive => {
  const key = `sk-ant-api03-${random.chars(BASE64URL, 93)}AA`
  if (random.chance(0.2)) {
    return positive("anthropic_key", `curl https://api.anthropic.com/v1/messages -H "x-api-key: ${key}" -H "anthropic-version: 2023-06-01"`, tokenSecrets(key))
  }
  return tokenCase(random, "anthropic_key", key, ["ANTHROPIC_API_KEY", "CLAUDE_API_KEY"])
}

const googleApiKey = (random: Random): Positive => {
  const key = `AIza${random.chars(BASE64URL, 35)}`
  if (random.chance(0.25)) {
    return positive("google_api_key", `GET https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=${key} 200`, tokenSecrets(key))
  }
  return tokenCase(random, "google_api_key", key, ["GOOGLE_API_KEY", "GEMINI_API_KEY", "FIREBASE_API_KEY"])
}

/** An opaque access token (not a JWT, no known prefix), found only by standing after `Bearer`. */
const bearer = (random: Random): Positive => {
  const token = random.chars(BASE62 + "-._~", random.int(24, 64))
  const form = random.int(0, 3)
  const text =
    form === 0 ? `curl -H "Authorization: Bearer ${token}" https://api.example.com/v2/orders`
    : form === 1 ? JSON.stringify({ method: "GET", url: "https://api.example.com/me", headers: { Accept: "application/json", Authorization: `Bearer ${token}` } })
    : form === 2 ? `> GET /v1/items HTTP/1.1\n> Host: api.example.com\n> Authorization: Bearer ${token}\n`
    : `requests.get(url, headers={"Authorization": "Bearer ${token}"})`
  return positive("bearer", text, tokenSecrets(token))
}

/** URL-safe password characters (RFC 3986 unreserved) plus a percent-encoded symbol now and then. */
const urlPassword = (random: Random): string => {
  let password = random.chars(BASE62 + "-._~", random.int(8, 32))
  if (random.chance(0.3)) password += random.pick(["%21", "%40", "%23", "%24"]) + random.chars(BASE62, 3)
  return password
}

const urlCredentials = (random: Random): Positive => {
  const user = random.pick(["app", "admin", "postgres", "svc_reader", "deploy", "guest", "root"])
  const password = urlPassword(random)
  const host = random.pick(["db.internal", "10.0.3.17", "prod-db.cluster-abc.eu-west-1.rds.amazonaws.com", "localhost", "redis", "mq.example.com"])
  const url = random.pick([
    `postgres://${user}:${password}@${host}:5432/orders`,
    `postgresql://${user}:${password}@${host}/app?sslmode=require`,
    `mysql://${user}:${password}@${host}:3306/shop`,
    `redis://${user}:${password}@${host}:6379/0`,
    // Redis has no user by default: redis-py and ioredis take a password alone this way
    `redis://:${password}@${host}:6379/0`,
    `amqp://${user}:${password}@${host}:5672/vhost`,
    `mongodb+srv://${user}:${password}@cluster0.example.mongodb.net/test`,
    `https://${user}:${password}@registry.example.com/simple/`
  ])
  const form = random.int(0, 3)
  const text =
    form === 0 ? `DATABASE_URL=${url}`
    : form === 1 ? `Connecting to ${url} ...`
    : form === 2 ? JSON.stringify({ tool: "run_sql", dsn: url, query: "select 1" })
    : `psql "${url}" -c '\\dt'`
  return positive("password", text, [password])
}

/** A generated password: letters, digits and the usual symbols of password generators. */
const password = (random: Random): string => random.chars(BASE62 + "!@#$%^&*-_=+?.~", random.int(10, 24))

/** Values under secret-like names (`api_key = "..."`, `password: ...`, `{"client_secret": "..."}`). */
const secretUnderName = (random: Random): Positive => {
  const form = random.int(0, 9)
  const key = random.chars(BASE62, 32)
  if (form === 0) return positive("secret", `api_key = "${key}"`, [key])
  if (form === 1) return positive("secret", `${random.pick(["API_KEY", "SERVICE_API_KEY", "DATADOG_API_KEY", "apiKey"])}=${key}`, [key])
  if (form === 2) {
    const value = password(random)
    return positive("secret", `${random.pick(["password", "db_password", "PASSWORD", "smtp.password"])}: ${value}`, [value])
  }
  if (form === 3) {
    const value = random.chars(BASE64URL, random.int(24, 48))
    return positive("secret", JSON.stringify({ client_id: "web-app", client_secret: value }), [value])
  }
  if (form === 4) {
    const value = random.chars(HEX, 64)
    return positive("secret", JSON.stringify({ name: "set_config", arguments: JSON.stringify({ webhook_secret: value, retries: 3 }) }), [value])
  }
  if (form === 5) {
    const value = password(random)
    return positive("secret", `mysql -u root --password=${value} shop`, [value])
  }
  if (form === 6) {
    const value = random.chars(BASE62, 40)
    return positive("secret", `  auth_token: "${value}"\n  timeout: 30\n`, [value])
  }
  if (form === 7) {
    const value = random.chars(BASE62, 40)
    return positive("secret", `"x-api-key": "${value}"`, [value])
  }
  // camelCase names, as JavaScript and most JSON APIs write them
  const value = random.chars(BASE62, 32)
  const name = random.pick(["accessToken", "refreshToken", "clientSecret", "apiToken", "openaiApiKey", "secretKey"])
  return form === 8
    ? positive("secret", JSON.stringify({ [name]: value, expiresIn: 3600 }), [value])
    : positive("secret", `const ${name} = "${value}";`, [value])
}

// --- JWTs, signed here -------------------------------------------------------------------------

const base64url = (data: Buffer | string): string => Buffer.from(data).toString("base64url")

interface SigningKeys {
  readonly rsa: KeyObject
  readonly ec: KeyObject
}

let signingKeys: SigningKeys | undefined
const keys = (): SigningKeys => {
  signingKeys ??= {
    rsa: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey,
    ec: generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey
  }
  return signingKeys
}

/** A JWT signed now: HS256 (HMAC), RS256 or ES256, with the claims an identity provider sets. */
export const signJwt = (random: Random): string => {
  const alg = random.pick(["HS256", "HS256", "RS256", "ES256"])
  const header: Record<string, string> = { alg, typ: "JWT" }
  if (random.chance(0.5)) header["kid"] = random.chars(BASE64URL, 16)
  const iat = 1_700_000_000 + random.int(0, 50_000_000)
  const claims: Record<string, unknown> = { sub: random.chars(DIGITS, 10), iat, exp: iat + 3600 }
  if (random.chance(0.5)) claims["email"] = `${random.pick(["ana", "li", "sam"])}@example.com`
  if (random.chance(0.5)) claims["scope"] = random.pick(["read", "read write", "openid profile email"])
  if (random.chance(0.3)) claims["iss"] = "https://auth.example.com/"
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`
  const signature =
    alg === "HS256" ? createHmac("sha256", random.chars(BASE62, 32)).update(input).digest()
    : alg === "RS256" ? sign("sha256", Buffer.from(input), keys().rsa)
    : sign("sha256", Buffer.from(input), { key: keys().ec, dsaEncoding: "ieee-p1363" })
  return `${input}.${base64url(signature)}`
}

const jwt = (random: Random): Positive => {
  const token = signJwt(random)
  const form = random.int(0, 5)
  const text =
    form === 0 ? `curl -H "Authorization: Bearer ${token}" https://api.example.com/v1/me`
    : form === 1 ? JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600 })
    : form === 2 ? `GET /callback?id_token=${token}&state=xyz HTTP/1.1`
    : form === 3 ? `Set-Cookie: session=${token}; Path=/; HttpOnly; Secure`
    : form === 4 ? `The token ${token} expired at 12:00.`
    : JSON.stringify({ name: "http_request", arguments: JSON.stringify({ headers: { authorization: `Bearer ${token}` } }) })
  return positive("jwt", text, tokenSecrets(token))
}

// --- PEM private keys --------------------------------------------------------------------------

/** `openssl genpkey` (and one conversion) for a few algorithms: at most six runs. */
const opensslKeys = (): Array<string> => {
  const run = (args: ReadonlyArray<string>, input?: string): string | undefined => {
    const result = spawnSync("openssl", args, { encoding: "utf8", input, timeout: 30_000 })
    return result.status === 0 && result.stdout.includes("PRIVATE KEY") ? result.stdout : undefined
  }
  const rsa = run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
  const found = [
    rsa,
    rsa === undefined ? undefined : run(["pkey", "-traditional"], rsa),
    run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]),
    run(["genpkey", "-algorithm", "ED25519"]),
    run(["genpkey", "-algorithm", "ED448"]),
    run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-aes-256-cbc", "-pass", "pass:correct-horse"])
  ]
  return found.filter((pem): pem is string => pem !== undefined)
}

/** Keys from node's own generator, in the encodings openssl does not give above (SEC1, PKCS#1 EC). */
const nodeKeys = (): Array<string> => {
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey
  const x25519 = generateKeyPairSync("x25519").privateKey
  return [
    String(ec.export({ type: "sec1", format: "pem" })),
    String(x25519.export({ type: "pkcs8", format: "pem" })),
    String(generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }))
  ]
}

let pems: ReadonlyArray<string> | undefined
/** The PEM keys, generated once per process. */
export const pemKeys = (): ReadonlyArray<string> => {
  pems ??= [...opensslKeys(), ...nodeKeys()]
  if (pems.length < 6) throw new Error("could not generate private keys (is openssl installed?)")
  return pems
}

/** The base64 lines of a PEM block (each one must be gone). */
const bodyLines = (pem: string): Array<string> =>
  pem.split("\n").filter((line) => line.length > 0 && !line.startsWith("-----") && !line.includes(":"))

const privateKey = (random: Random): Positive => {
  const pem = random.pick(pemKeys()).trimEnd()
  const lines = bodyLines(pem)
  const form = random.int(0, 5)
  const text =
    form === 0 ? `Here is the key:\n${pem}\n`
    : form === 1 ? JSON.stringify({ tool: "read_file", path: "/home/dev/.ssh/deploy_key", content: `${pem}\n` })
    : form === 2 ? `tls:\n  key: |\n${pem.split("\n").map((line) => `    ${line}`).join("\n")}\n  cert: ./cert.pem\n`
    : form === 3 ? `PRIVATE_KEY="${pem.split("\n").join("\\n")}"`
    : form === 4 ? `$ cat key.pem\n${pem}\n$ chmod 600 key.pem`
    : JSON.stringify({ result: JSON.stringify({ stdout: pem, exit_code: 0 }) })
  return positive("private_key", text, lines)
}

// --- personal data -----------------------------------------------------------------------------

const FIRST = ["jane", "john", "maria", "wei", "olu", "fatima", "lukas", "sofia", "arjun", "noah", "emma", "kenji"]
const LAST = ["doe", "smith", "garcia", "chen", "adeyemi", "khan", "muller", "rossi", "patel", "brown", "tanaka"]
const DOMAINS = ["corp.example", "example.com", "mail.example.org", "acme.co.uk", "uni-berlin.de", "startup.io", "gmail.com"]

const email = (random: Random): Positive => {
  const first = random.pick(FIRST)
  const last = random.pick(LAST)
  const local = random.pick([
    `${first}.${last}`,
    `${first}${last}${random.int(1, 99)}`,
    `${first}_${last}`,
    `${first}+${random.pick(["billing", "test", "news"])}`,
    `${first.charAt(0)}${last}`
  ])
  const address = `${local}@${random.pick(DOMAINS)}`
  const text = place(
    random.pick([
      "Contact {{v}} for access.",
      "From: Jane <{{v}}>\nSubject: invoice",
      "{\"to\":\"{{v}}\",\"subject\":\"Your order\"}",
      "The user ({{v}}) asked for a refund.",
      "mailto:{{v}}",
      "Send the report to {{v}}, please."
    ]),
    address
  )
  return positive("email", text, local.length >= 4 ? [address, local] : [address])
}

/** The Luhn check digit for a number's other digits. */
const luhnCheckDigit = (digits: string): string => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits.charAt(digits.length - 1 - i))
    if (i % 2 === 0) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return String((10 - (sum % 10)) % 10)
}

/** A card number: a brand's prefix and length, random digits, the Luhn check digit. */
export const cardNumber = (random: Random): string => {
  const brand = random.int(0, 4)
  const [prefix, length] =
    brand === 0 ? ["4", 16]
    : brand === 1 ? [String(random.int(51, 55)), 16]
    : brand === 2 ? [String(random.int(2221, 2720)), 16]
    : brand === 3 ? [random.pick(["34", "37"]), 15]
    : ["6011", 16]
  const body = prefix + random.chars(DIGITS, length - prefix.length - 1)
  return body + luhnCheckDigit(body)
}

const card = (random: Random): Positive => {
  const digits = cardNumber(random)
  const separator = random.pick([" ", "-", ""])
  const groups = digits.length === 15 ? [digits.slice(0, 4), digits.slice(4, 10), digits.slice(10)] : [0, 4, 8, 12].map((at) => digits.slice(at, at + 4))
  const printed = groups.join(separator)
  const text = place(
    random.pick([
      "{\"card\":\"{{v}}\",\"exp\":\"04/27\"}",
      "Charge card {{v}} for the renewal.",
      "card number: {{v}}, exp 09/26, cvc on file",
      "The customer read out {{v}} over the phone.",
      "{\"name\":\"pay\",\"arguments\":{\"card_number\":\"{{v}}\",\"amount\":42}}"
    ]),
    printed
  )
  return positive("card", text, [printed, ...groupsOf(printed)])
}

/** Countries' BBAN layouts and IBAN lengths (ISO 13616 registry): n digit, a upper-case letter, c either. */
const IBAN_LAYOUTS: ReadonlyArray<readonly [country: string, layout: string, length: number]> = [
  ["DE", "n".repeat(18), 22],
  ["GB", "a".repeat(4) + "n".repeat(14), 22],
  ["FR", "n".repeat(10) + "c".repeat(11) + "n".repeat(2), 27],
  ["NL", "a".repeat(4) + "n".repeat(10), 18],
  ["ES", "n".repeat(20), 24],
  ["IT", "a" + "n".repeat(10) + "c".repeat(12), 27],
  ["CH", "n".repeat(5) + "c".repeat(12), 21],
  ["BE", "n".repeat(12), 16],
  ["AT", "n".repeat(16), 20],
  ["PL", "n".repeat(24), 28],
  ["SE", "n".repeat(20), 24],
  ["NO", "n".repeat(11), 15]
]

/** ISO 7064 mod 97-10 of an alphanumeric string (letters as 10..35). */
const mod97 = (value: string): number => {
  let remainder = 0
  for (const char of value) {
    const code = char.charCodeAt(0)
    const digits = code >= 65 ? String(code - 55) : char
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97
  }
  return remainder
}

export const ibanNumber = (random: Random): string => {
  const [country, layout, length] = random.pick(IBAN_LAYOUTS)
  if (layout.length + 4 !== length) throw new Error(`IBAN layout of ${country}: ${layout.length + 4} characters, not ${length}`)
  let bban = ""
  for (const slot of layout) bban += slot === "n" ? random.chars(DIGITS, 1) : slot === "a" ? random.chars(UPPER, 1) : random.chars(UPPER + DIGITS, 1)
  const check = String(98 - mod97(`${bban}${country}00`)).padStart(2, "0")
  return `${country}${check}${bban}`
}

const iban = (random: Random): Positive => {
  const compact = ibanNumber(random)
  const printed = random.chance(0.5) ? compact : (compact.match(/.{1,4}/g) ?? [compact]).join(" ")
  const text = place(
    random.pick([
      "Please wire the deposit to IBAN {{v}} by Friday.",
      "{\"iban\":\"{{v}}\",\"bic\":\"DEUTDEFF\"}",
      "IBAN: {{v}}\nReference: INV-2024-118",
      "The refund goes to {{v}} (checking)."
    ]),
    printed
  )
  return positive("iban", text, [printed, ...groupsOf(printed)])
}

const phone = (random: Random): Positive => {
  const area = `${random.int(2, 9)}${random.chars(DIGITS, 2)}`
  const exchange = `${random.int(2, 9)}${random.chars(DIGITS, 2)}`
  const line = random.chars(DIGITS, 4)
  const printed = random.pick([
    `+1${area}${exchange}${line}`,
    `+1 (${area}) ${exchange}-${line}`,
    `(${area}) ${exchange}-${line}`,
    `${area}-${exchange}-${line}`,
    `${area}.${exchange}.${line}`,
    `+1-${area}-${exchange}-${line}`,
    `+44 20 ${random.chars(DIGITS, 4)} ${random.chars(DIGITS, 4)}`,
    `+4420${random.chars(DIGITS, 8)}`,
    `+44 7${random.chars(DIGITS, 3)} ${random.chars(DIGITS, 6)}`,
    `+4930${random.chars(DIGITS, 6)}`,
    `+49 30 ${random.chars(DIGITS, 3)} ${random.chars(DIGITS, 5)}`,
    `+33 1 ${random.chars(DIGITS, 2)} ${random.chars(DIGITS, 2)} ${random.chars(DIGITS, 2)} ${random.chars(DIGITS, 2)}`
  ])
  const text = place(
    random.pick([
      "Call me at {{v}} after 5pm.",
      "{\"phone\":\"{{v}}\",\"name\":\"Ana\"}",
      "Phone: {{v}}\n",
      "Her number is {{v}}, she prefers texts.",
      "tel:{{v}}"
    ]),
    printed
  )
  return positive("phone", text, [printed, ...groupsOf(printed)])
}

/** A public-looking IPv4 address (no 0, 10, 127 or multicast first octet). */
const publicIpv4 = (random: Random): string => {
  let first = random.int(1, 223)
  while (first === 10 || first === 127) first = random.int(1, 223)
  return `${first}.${random.int(0, 255)}.${random.int(0, 255)}.${random.int(1, 254)}`
}

const ipv4 = (random: Random): Positive => {
  const address = publicIpv4(random)
  const text = place(
    random.pick([
      "Connection from {{v}} refused.",
      "{\"client_ip\":\"{{v}}\",\"status\":403}",
      "client_ip={{v}} method=GET path=/login",
      "ssh deploy@{{v}} -p 2222",
      "curl http://{{v}}:8080/health",
      "X-Forwarded-For: {{v}}"
    ]),
    address
  )
  return positive("ipv4", text, [address])
}

const hexGroup = (random: Random): string => random.chars(HEX, random.int(1, 4)).replace(/^0+(?=.)/, "")

const ipv6 = (random: Random): Positive => {
  const form = random.int(0, 4)
  const groups = Array.from({ length: 8 }, () => hexGroup(random))
  const address =
    form === 0 ? groups.join(":")
    : form === 1 ? `2001:db8::${hexGroup(random)}`
    : form === 2 ? `fe80::${groups.slice(4).join(":")}`
    : form === 3 ? `${groups.slice(0, 3).join(":")}::${groups.slice(6).join(":")}`
    : `2a02:${groups.slice(1, 4).join(":")}::${hexGroup(random)}`
  const text = place(
    random.pick([
      "Connection from {{v}} refused.",
      "{\"remote_addr\":\"{{v}}\"}",
      "curl -g http://[{{v}}]:8080/health",
      "inet6 {{v}}/64 scope global",
      "Blocked {{v}} after 5 failed logins."
    ]),
    address
  )
  return positive("ipv6", text, [address])
}

const GENERATORS: Readonly<Record<Kind, (random: Random) => Positive>> = {
  private_key: privateKey,
  jwt,
  anthropic_key: anthropicKey,
  openai_key: openaiKey,
  aws_key: awsKey,
  aws_secret_key: awsSecretKey,
  github_token: githubToken,
  gitlab_token: gitlabToken,
  slack_token: slackToken,
  slack_webhook: slackWebhook,
  stripe_key: stripeKey,
  google_api_key: googleApiKey,
  bearer,
  password: urlCredentials,
  secret: secretUnderName,
  email,
  iban,
  card,
  phone,
  ipv4,
  ipv6
}

/** `count` positives of one kind, the same for the same seed. */
export const positives = (kind: Kind, count: number, seed = 1): Array<Positive> => {
  const random = makeRandom(seed * 7919 + KINDS.indexOf(kind))
  return Array.from({ length: count }, () => GENERATORS[kind](random))
}

// --- negatives ---------------------------------------------------------------------------------

export const NEGATIVE_CLASSES = ["commit_sha", "uuid", "trace_id", "span_id", "base64_image", "iso_timestamp", "nanosecond_timestamp", "semver"] as const
export type NegativeClass = (typeof NEGATIVE_CLASSES)[number]

/** A version 4 UUID (RFC 9562: version nibble 4, variant 10xx). */
const uuid = (random: Random): string => {
  const hex = random.chars(HEX, 32).split("")
  hex[12] = "4"
  hex[16] = random.pick(["8", "9", "a", "b"])
  const s = hex.join("")
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`
}

const randomBytes = (random: Random, length: number): Buffer => {
  const bytes = Buffer.alloc(length)
  for (let i = 0; i < length; i++) bytes[i] = random.int(0, 255)
  return bytes
}

const pad = (value: number, width = 2): string => String(value).padStart(width, "0")

const isoTimestamp = (random: Random): string => {
  const date = new Date(Date.UTC(2019, 0, 1) + random.int(0, 7 * 365 * 86_400) * 1000 + random.int(0, 999))
  const base = date.toISOString()
  const form = random.int(0, 3)
  if (form === 0) return base
  if (form === 1) return base.slice(0, 19) + "Z"
  const hours = random.int(-11, 14)
  const offset = `${hours < 0 ? "-" : "+"}${pad(Math.abs(hours))}:${random.pick(["00", "30", "45"])}`
  return form === 2 ? base.slice(0, 23) + offset : `${base.slice(0, 19)}.${random.chars(DIGITS, 6)}${offset}`
}

/** Nanoseconds since the epoch, 19 digits (OTLP's `timeUnixNano`), between about 2020 and 2030. */
const nanoseconds = (random: Random): string => `${random.int(1_600_000_000, 1_899_999_999)}${random.chars(DIGITS, 9)}`

const semver = (random: Random): string => {
  const core = `${random.int(0, 30)}.${random.int(0, 60)}.${random.int(0, 200)}`
  const form = random.int(0, 3)
  return form === 0 ? core
    : form === 1 ? `${core}-rc.${random.int(1, 9)}`
    : form === 2 ? `v${core}+build.${random.int(1, 9999)}`
    : `${core}-beta.${random.int(1, 20)}+${random.chars(HEX, 7)}`
}

const NEGATIVE_GENERATORS: Readonly<Record<NegativeClass, (random: Random) => string>> = {
  commit_sha: (random) => {
    const sha = random.chars(HEX, 40)
    return place(random.pick(["Merged in commit {{v}} on main.", "git checkout {{v}}", "{\"sha\":\"{{v}}\",\"ref\":\"refs/heads/main\"}", "HEAD is now at {{v}} fix: retry"]), sha)
  },
  uuid: (random) =>
    place(random.pick(["request_id={{v}}", "{\"id\":\"{{v}}\",\"object\":\"run\"}", "Created session {{v}}.", "/v1/threads/{{v}}/messages"]), uuid(random)),
  trace_id: (random) =>
    place(random.pick(["trace_id={{v}}", "{\"traceId\":\"{{v}}\"}", "See trace {{v}} in Jaeger."]), random.chars(HEX, 32)),
  span_id: (random) =>
    place(random.pick(["span_id={{v}}", "{\"spanId\":\"{{v}}\",\"parentSpanId\":\"\"}", "parent span {{v}} ended."]), random.chars(HEX, 16)),
  base64_image: (random) => {
    const data = randomBytes(random, random.int(200, 2000)).toString("base64")
    return place(random.pick(["![chart](data:image/png;base64,{{v}})", "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,{{v}}\"}}", "<img src=\"data:image/png;base64,{{v}}\">"]), data)
  },
  iso_timestamp: (random) =>
    place(random.pick(["Started at {{v}}.", "{\"timestamp\":\"{{v}}\",\"level\":\"info\"}", "{{v}} INFO worker ready", "deadline: {{v}}"]), isoTimestamp(random)),
  nanosecond_timestamp: (random) => {
    const start = nanoseconds(random)
    return place(random.pick(["startTimeUnixNano={{v}}", "{\"timeUnixNano\":\"{{v}}\"}", "{\"startTimeUnixNano\":{{v}},\"endTimeUnixNano\":{{v}}}", "ts {{v}} span ended"]), start)
  },
  semver: (random) =>
    place(random.pick(["Upgraded to {{v}}.", "\"version\": \"{{v}}\"", "npm install effect@{{v}}", "release {{v}} is out"]), semver(random))
}

/** `count` negatives of one class, the same for the same seed. */
export const negatives = (negativeClass: NegativeClass, count: number, seed = 1): Array<string> => {
  const random = makeRandom(seed * 104_729 + NEGATIVE_CLASSES.indexOf(negativeClass))
  return Array.from({ length: count }, () => NEGATIVE_GENERATORS[negativeClass](random))
}
