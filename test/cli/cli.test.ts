/**
 * The `svc` command line (issue 17, DECISIONS §14): the real binary, in-process and against a
 * running service (`--url`, the typed client), with the model provider replaced by the loopback
 * double. Same output both ways; exit codes 0, 1, 2, 3, 70 and 130; stdout holds only the result.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { createServer, type Server } from "node:http"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"
import { freePort } from "../support/Net.js"
import { requireTool } from "../support/Tools.js"
import { validateSarif } from "../support/Sarif.js"
import { REPO, stable, svc, tempFile, withoutClock } from "./support.js"

let double: ProviderDouble
let service: RunningService
let providerEnv: Record<string, string>
beforeAll(async () => {
  double = await startProviderDouble()
  providerEnv = { OPENAI_API_KEY: "sk-test-cli-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }
  service = await startService(providerEnv)
})
afterAll(async () => {
  await service.close()
  await double.close()
})

const lewinTrace = () => tempFile("lewin-run.json", JSON.stringify(exampleTrace("lewin"), null, 2))
const openaiFailed = join(REPO, "test", "fixtures", "traces", "openai", "responses-failed.json")
const parse = (text: string): unknown => JSON.parse(text)
const field = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? Reflect.get(at, key) : undefined), value)

describe("svc analyze", () => {
  it("prints the detection as JSON in-process, the same through --url (the typed client), and as Markdown", async () => {
    const trace = lewinTrace()
    const local = await svc(["analyze", "lewin", trace, "--mode", "quick"], { env: providerEnv })
    expect(local.stderr).toBe("")
    expect(local.code).toBe(0)
    const body = parse(local.stdout)
    expect(field(body, "pattern")).toBe("lewin")
    expect(field(body, "mode")).toBe("quick")
    expect(field(body, "detection", "severity")).toBe("high")
    expect(field(body, "detection", "evidence_check", "dropped")).toBe(0)
    expect(field(body, "detection", "usage", "llm_calls")).toBe(1)

    const remote = await svc(["analyze", "lewin", trace, "--mode", "quick", "--url", service.url], { env: {} })
    expect(remote.stderr).toBe("")
    expect(remote.code).toBe(0)
    expect(JSON.stringify(stable(parse(remote.stdout)))).toBe(JSON.stringify(stable(body)))

    // The REST body for the same trace: the CLI prints what the service answers.
    const rest = await fetch(`${service.url}/v1/analyze/lewin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick" })
    })
    expect(stable(await rest.json())).toEqual(stable(body))

    const markdown = await svc(["analyze", "lewin", trace, "--mode", "quick", "--format", "markdown"], { env: providerEnv })
    expect(markdown.code).toBe(0)
    expect(markdown.stdout).toMatch(/^# `lewin`: HIGH, confidence \d\.\d\d/)
    expect(markdown.stdout).toContain("## Findings (2)")
    const remoteMarkdown = await svc(["analyze", "lewin", trace, "--mode", "quick", "--format", "markdown", "--url", service.url])
    expect(withoutClock(remoteMarkdown.stdout)).toBe(withoutClock(markdown.stdout))
  })

  it("reads standard input with - (and with no FILE), JSON Lines, and --hints inline or from a file", async () => {
    const text = JSON.stringify(exampleTrace("lewin"))
    const dash = await svc(["analyze", "lewin", "-", "--mode", "quick"], { env: providerEnv, input: text })
    expect(dash.code).toBe(0)
    expect(field(parse(dash.stdout), "pattern")).toBe("lewin")
    const none = await svc(["analyze", "lewin", "--mode", "quick"], { env: providerEnv, input: text })
    expect(none.code).toBe(0)

    const lines = readFileSync(join(REPO, "test", "fixtures", "traces", "trajectory", "openhands-output.jsonl"), "utf8")
    const jsonl = await svc(["analyze", "lewin", tempFile("output.jsonl", lines), "--mode", "quick", "--select", "1"], { env: providerEnv })
    expect(jsonl.stderr).toBe("")
    expect(field(parse(jsonl.stdout), "detection", "intake", "format")).toBe("trajectory")
    expect(field(parse(jsonl.stdout), "detection", "intake", "trace_id")).toBe("acme__reports-219")

    const hints = { options: ["retry the request", "report the outage"], stakes: "high" }
    const hintsFile = tempFile("hints.json", JSON.stringify(hints))
    const inline = await svc(["analyze", "group_decision", openaiFailed, "--mode", "quick", "--hints", JSON.stringify(hints)], { env: providerEnv })
    const fromFile = await svc(["analyze", "group_decision", openaiFailed, "--mode", "quick", "--hints", hintsFile], { env: providerEnv })
    expect(inline.stderr).toBe("")
    expect(inline.code).toBe(0)
    expect(field(parse(inline.stdout), "detection", "intake", "hints")).toEqual(["options", "stakes"])
    expect(stable(parse(fromFile.stdout))).toEqual(stable(parse(inline.stdout)))
  })

  it("--fail-on: exit 1 when a finding is at or above the threshold, 0 below it", async () => {
    const trace = lewinTrace()
    const high = await svc(["analyze", "lewin", trace, "--mode", "quick", "--fail-on", "high"], { env: providerEnv })
    expect(high.code).toBe(1)
    expect(field(parse(high.stdout), "detection", "severity")).toBe("high")
    const critical = await svc(["analyze", "lewin", trace, "--mode", "quick", "--fail-on", "critical"], { env: providerEnv })
    expect(critical.code).toBe(0)
  })
})

describe("svc diagnose", () => {
  it("with no provider configured: exit 3, the checks' verdict and the triage report still written", async () => {
    const out = join(tempFile("placeholder", ""), "..", "report.md")
    const ran = await svc(["diagnose", openaiFailed, "--out", out])
    expect(ran.code).toBe(3)
    expect(ran.stdout).toBe("")
    expect(ran.stderr).toMatch(/svc diagnose: \d+ of \d+ lenses did not run \(llm_resolution_error\)/)
    const report = readFileSync(out, "utf8")
    // the checks need no model: the run's failed model call (a 500) is the verdict (issue 48)
    expect(report).toContain("# Diagnose: HIGH")
    expect(report).toContain("provider_error")
    expect(report).toContain("No model provider is configured")
    expect(report).toContain("## Triage")
  })

  it("in-process and --url print the same report (markdown, json, sarif, html, otlp); SARIF locates the input file and validates", async () => {
    const trace = tempFile("run.json", readFileSync(openaiFailed, "utf8"))
    const cwd = dirname(trace)
    for (const format of ["markdown", "json", "sarif", "html", "otlp"]) {
      const args = ["diagnose", "run.json", "--mode", "quick", "--patterns", "lewin,psych_safety", "--format", format]
      const local = await svc(args, { env: providerEnv, cwd })
      const remote = await svc([...args, "--url", service.url], { cwd })
      expect(local.code, `${format}: ${local.stderr}`).toBe(0)
      expect(remote.code, `${format}: ${remote.stderr}`).toBe(0)
      expect(local.stderr).toBe("")
      expect(withoutClock(remote.stdout)).toBe(withoutClock(local.stdout))
      if (format === "json") expect(field(parse(local.stdout), "report", "patterns")).toHaveLength(2)
      if (format === "sarif") {
        const log = parse(local.stdout)
        expect(local.stdout).toContain("\"uri\": \"run.json\"")
        // An absolute path inside the working directory is given relative to it, as code scanning expects.
        const absolute = await svc(["diagnose", trace, "--mode", "quick", "--patterns", "lewin", "--format", "sarif"], { env: providerEnv, cwd })
        expect(absolute.stdout).toContain("\"uri\": \"run.json\"")
        const validation = await validateSarif(log, "cli-diagnose")
        expect(validation.errors).toEqual([])
      }
    }
  })

  it("--fail-on over the merged report, --artifact for SARIF from standard input", async () => {
    const trace = readFileSync(openaiFailed, "utf8")
    const high = await svc(["diagnose", "-", "--mode", "quick", "--patterns", "lewin", "--format", "sarif", "--artifact", "runs/failed.json", "--fail-on", "high"], {
      env: providerEnv,
      input: trace
    })
    expect(high.code).toBe(1)
    expect(high.stdout).toContain("\"uri\": \"runs/failed.json\"")
    const critical = await svc(["diagnose", "-", "--mode", "quick", "--patterns", "lewin", "--format", "json", "--fail-on", "critical"], { env: providerEnv, input: trace })
    expect(critical.code).toBe(0)
  })
})

describe("svc normalize and svc patterns", () => {
  it("print what the service serves, in-process and through --url", async () => {
    const local = await svc(["normalize", openaiFailed])
    const remote = await svc(["normalize", openaiFailed, "--url", service.url])
    expect(local.code).toBe(0)
    expect(remote.stdout).toBe(local.stdout)
    const rest = await fetch(`${service.url}/v1/traces/normalize`, { method: "POST", headers: { "content-type": "application/json" }, body: readFileSync(openaiFailed) })
    expect(parse(local.stdout)).toEqual(await rest.json())

    const list = await svc(["patterns"])
    expect(list.stdout.trim().split("\n")).toHaveLength(34)
    expect(list.stdout).toMatch(/^lewin +individual +Lewin Attribution$/m)
    const json = await svc(["patterns", "--json"])
    const remoteJson = await svc(["patterns", "--json", "--url", service.url])
    expect(field(parse(json.stdout), "count")).toBe(34)
    expect(remoteJson.stdout).toBe(json.stdout)
    for (const flag of ["--playbooks", "--citations", "--composition"]) {
      const one = await svc(["patterns", "lencioni", flag])
      const other = await svc(["patterns", "lencioni", flag, "--url", service.url])
      expect(one.code).toBe(0)
      expect(other.stdout).toBe(one.stdout)
    }
    const citations = await svc(["patterns", "lencioni", "--citations"])
    expect(citations.stdout.trimEnd()).toBe((await (await fetch(`${service.url}/v1/patterns/lencioni/citations`)).text()).trimEnd())
  })
})

describe("exit codes and errors", () => {
  it("usage and input errors exit 2 with one line on stderr and nothing on stdout", async () => {
    const bad = tempFile("bad.json", "{ not json")
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [["analyze", "no_such_pattern", openaiFailed], /unknown_pattern: no pattern named "no_such_pattern"/],
      [["analyze", "lewin", "/nonexistent/run.json"], /cannot read \/nonexistent\/run.json: no such file/],
      [["analyze", "lewin", bad], /the trace is not valid JSON/],
      [["diagnose", tempFile("odd.json", JSON.stringify({ hello: "world" }))], /unsupported_trace_format/],
      [["analyze", "lewin", openaiFailed, "--hints", "{oops"], /--hints is not valid JSON/],
      [["diagnose", openaiFailed, "--max-patterns", "40"], /validation_error: max_patterns must be an integer from 1 to 12/],
      [["analyze", "lewin", openaiFailed, "--url", "ftp://example"], /--url must be an http:\/\/ or https:\/\/ address/],
      [["diagnose", "--no-such-flag"], /no-such-flag/],
      [["analyze", "lewin", openaiFailed, "--mode", "slow"], /Expected one of the following cases: quick, standard, forensic/]
    ]
    for (const [args, message] of cases) {
      const ran = await svc(args)
      expect(ran.code, `${args.join(" ")}: ${ran.stderr}`).toBe(2)
      expect(ran.stdout, args.join(" ")).toBe("")
      expect(ran.stderr, args.join(" ")).toMatch(message)
      expect(ran.stderr).not.toContain("\u001b[")
    }
  })

  it("no analysis could run: the provider failing, a deadline, the service unreachable exit 3; an answer outside the contract exits 70", async () => {
    double.script = () => ({ kind: "status", status: 401, body: JSON.stringify({ error: { message: "bad key" } }) })
    try {
      const failing = await svc(["analyze", "lewin", lewinTrace(), "--mode", "quick"], { env: providerEnv })
      expect(failing.code).toBe(3)
      expect(failing.stdout).toBe("")
      expect(failing.stderr).toMatch(/^svc analyze: (llm_resolution_error|analyzer_error): /)
      expect(failing.stderr).not.toContain("sk-test-cli")
    } finally {
      double.reset()
    }
    double.script = () => ({ kind: "hang" })
    try {
      const slow = await svc(["analyze", "lewin", lewinTrace(), "--mode", "quick"], { env: { ...providerEnv, SVC_API_REQUEST_TIMEOUT: "1s" } })
      expect(slow.code).toBe(3)
      expect(slow.stderr).toMatch(/^svc analyze: timeout: /)
    } finally {
      double.reset()
    }

    const port = await freePort()
    const unreachable = await svc(["patterns", "--url", `http://127.0.0.1:${port}`])
    expect(unreachable.code).toBe(3)
    expect(unreachable.stderr).toMatch(/unreachable: no service answered at http:\/\/127\.0\.0\.1:\d+/)

    const impostor: Server = createServer((_, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ not: "a catalogue" }))
    })
    const impostorPort = await freePort()
    await new Promise<void>((resolve) => impostor.listen(impostorPort, "127.0.0.1", resolve))
    try {
      const odd = await svc(["patterns", "--url", `http://127.0.0.1:${impostorPort}`])
      expect(odd.code).toBe(70)
      expect(odd.stderr).toMatch(/did not match its contract/)
    } finally {
      await new Promise<void>((resolve) => impostor.close(() => resolve()))
    }
  })

  it("a service that cannot start in-process (its catalogue missing) exits 70 and says why", async () => {
    const ran = await svc(["patterns"], { env: { SVC_PATTERNS_DIR: tempFile("empty", "").replace(/empty$/, "") } })
    expect(ran.code).toBe(70)
    expect(ran.stdout).toBe("")
    expect(ran.stderr).toMatch(/^svc patterns: could not start: .*catalogue\.json/)
  })

  it("Ctrl-C (SIGINT) during an analysis aborts the model request and exits 130", async () => {
    double.script = () => ({ kind: "hang" })
    try {
      const before = double.calls.length
      const ran = await svc(["analyze", "lewin", lewinTrace(), "--mode", "quick"], {
        env: providerEnv,
        started: (pid) => {
          const timer = setInterval(() => {
            if (double.calls.length > before) {
              clearInterval(timer)
              process.kill(pid, "SIGINT")
            }
          }, 20)
        }
      })
      expect(ran.code).toBe(130)
      expect(ran.stdout).toBe("")
      await expect.poll(() => double.calls.at(-1)?.closedEarly).toBe(true)
    } finally {
      double.reset()
    }
  })

  it("API keys: SVC_API_REQUIRE_AUTH in-process reads SVC_API_KEY; --api-key (or SVC_API_KEY) against a service", async () => {
    const keys = { SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: "ci=svc-key-0123456789abcdef" }
    const missing = await svc(["normalize", openaiFailed], { env: keys })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("unauthorized: an API key is required: set SVC_API_KEY in the environment of `svc normalize`")
    const present = await svc(["normalize", openaiFailed], { env: { ...keys, SVC_API_KEY: "svc-key-0123456789abcdef" } })
    expect(present.code).toBe(0)

    const guarded = await startService({ ...keys, ...providerEnv })
    try {
      const without = await svc(["normalize", openaiFailed, "--url", guarded.url])
      expect(without.code).toBe(2)
      expect(without.stderr).toMatch(/^svc normalize: unauthorized: /)
      const flag = await svc(["normalize", openaiFailed, "--url", guarded.url, "--api-key", "svc-key-0123456789abcdef"])
      expect(flag.code).toBe(0)
      const env = await svc(["normalize", openaiFailed, "--url", guarded.url], { env: { SVC_API_KEY: "svc-key-0123456789abcdef" } })
      expect(env.code).toBe(0)
      expect(env.stdout).toBe(flag.stdout)
    } finally {
      await guarded.close()
    }
  })
})

describe("svc serve and svc mcp", () => {
  it("svc serve runs the service as npm start does: it answers, SIGTERM drains it and it exits 0; invalid configuration exits 2", async () => {
    const port = await freePort()
    let pid = 0
    const running = svc(["serve"], { env: { SVC_PORT: String(port), SVC_DRAIN_DELAY_SECONDS: "0", SVC_LOG_LEVEL: "none" }, started: (child) => (pid = child) })
    await expect.poll(async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/readyz`)).status
      } catch {
        return 0
      }
    }, { timeout: 20_000, interval: 100 }).toBe(200)
    const patterns: unknown = await (await fetch(`http://127.0.0.1:${port}/v1/patterns`)).json()
    expect(field(patterns, "count")).toBe(34)
    process.kill(pid, "SIGTERM")
    const ran = await running
    expect(ran.code).toBe(0)

    const invalid = await svc(["serve"], { env: { SVC_PORT: "not-a-port" } })
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toContain("SVC_PORT")
  })

  it("svc mcp with an invalid configuration exits 2 and says why on stderr, stdout untouched", async () => {
    const ran = await svc(["mcp"], { env: { SVC_API_RATE_LIMIT: "lots" } })
    expect(ran.code).toBe(2)
    expect(ran.stdout).toBe("")
    expect(ran.stderr).toContain("SVC_API_RATE_LIMIT")
  })
})

describe("help and completions", () => {
  it("--help for svc and every subcommand, with examples and plain text when piped", async () => {
    const runs = ["submit", "list", "show", "wait", "retry", "export", "import"].map((sub) => ["runs", sub])
    for (const command of [[], ["serve"], ["analyze"], ["diagnose"], ["normalize"], ["patterns"], ["runs"], ...runs, ["mcp"]]) {
      const ran = await svc([...command, "--help"])
      expect(ran.code, command.join(" ")).toBe(0)
      expect(ran.stdout).toContain("EXAMPLES")
      expect(ran.stdout).toContain(`$ svc ${command.join(" ")}`.trimEnd())
      expect(ran.stdout).not.toContain("\u001b[")
    }
    const version = await svc(["--version"])
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version)
  })

  it("completion scripts for bash, zsh and fish: bash and fish complete a subcommand and an option, zsh parses", async () => {
    const scripts: Record<string, string> = {}
    for (const shell of ["bash", "zsh", "fish"]) {
      const ran = await svc(["--completions", shell])
      expect(ran.code).toBe(0)
      for (const command of ["serve", "analyze", "diagnose", "check", "normalize", "patterns", "runs", "mcp"]) expect(ran.stdout, shell).toContain(command)
      scripts[shell] = tempFile(`svc.${shell}`, ran.stdout)
    }
    const bash = spawnSync("bash", ["-c", `source ${scripts["bash"]}; COMP_WORDS=(svc dia); COMP_CWORD=1; _svc_bash_completions svc dia svc; echo "\${COMPREPLY[*]}"`], {
      encoding: "utf8"
    })
    expect(bash.stdout.trim()).toBe("diagnose")
    const fish = spawnSync(requireTool("fish", "fish"), ["-c", `source ${scripts["fish"]}; complete -C "svc dia"; complete -C "svc diagnose --fail"`], { encoding: "utf8" })
    expect(fish.stdout).toContain("diagnose")
    expect(fish.stdout).toContain("--fail-on")
    const zsh = spawnSync(requireTool("zsh", "zsh"), ["-n", scripts["zsh"] ?? ""], { encoding: "utf8" })
    expect(zsh.status, zsh.stderr).toBe(0)
  })
})
