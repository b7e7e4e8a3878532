/**
 * Issue 27 through the real `svc` binary: every read is bounded whatever `stat` says (/dev/zero,
 * standard input, a `--hints` file, against a service too), a read that never comes (a FIFO with
 * no writer) gives way to SIGTERM (143) and Ctrl-C (130), and names are printed escaped wherever
 * they are printed (errors, usage messages, SARIF's artifact, progress lines).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { printable, printableLines } from "../../src/Surfaces/Cli/Printable.js"
import { makeProgress } from "../../src/Surfaces/Cli/Progress.js"
import { freePort } from "../support/Net.js"
import { type Ran, REPO, svc, type SvcOptions } from "./support.js"

const trace = join(REPO, "test", "fixtures", "traces", "openai", "responses-failed.json")
const freshDir = () => mkdtempSync(join(tmpdir(), "svc-cli-hostile-"))
const LIMIT_MESSAGE = /request_too_large: .* holds more than 5242880 bytes \(the limit\); raise it with --max-bytes or SVC_API_MAX_BODY_BYTES\n$/

/** The child's peak resident set in bytes (VmHWM from /proc, sampled while it runs; the mark only grows). */
const svcWithPeak = async (args: ReadonlyArray<string>, options: SvcOptions = {}): Promise<Ran & { readonly peakBytes: number }> => {
  let peakBytes = 0
  let timer: ReturnType<typeof setInterval> | undefined
  const ran = await svc(args, {
    ...options,
    started: (pid) => {
      timer = setInterval(() => {
        try {
          const mark = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
          if (mark?.[1] !== undefined) peakBytes = Math.max(peakBytes, Number(mark[1]) * 1024)
        } catch {
          // The child has exited between two samples.
        }
      }, 5)
    }
  })
  clearInterval(timer)
  return { ...ran, peakBytes }
}

/** Whether process `pid` holds `path` open (it got past open(2)). */
const holdsOpen = (pid: number, path: string): boolean => {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path
      } catch {
        return false
      }
    })
  } catch {
    return false
  }
}

/** The run, or a failure (the child killed) if it is still running after `ms`: a hung child must not outlive the test. */
const within = (running: Promise<Ran>, pid: () => number, ms: number, what: string): Promise<Ran> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      process.kill(pid(), "SIGKILL")
      reject(new Error(`svc was still running ${ms / 1000} s after ${what}`))
    }, ms)
  })
  return Promise.race([running, expired]).finally(() => clearTimeout(timer))
}

/** The characters of `text` that a terminal would act on: controls other than newline, and bidi controls. */
const rawControls = (text: string): Array<string> =>
  Array.from(text).filter((character) => {
    const code = character.charCodeAt(0)
    return (code <= 0x1f && code !== 0x0a) || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)
  })

describe("bounded input", () => {
  it("/dev/zero as the trace: exit 2 with the limit and the variable named, memory bounded (the size stat reports is not trusted)", async () => {
    const small = await svcWithPeak(["normalize", trace])
    expect(small.code, small.stderr).toBe(0)
    const zero = await svcWithPeak(["diagnose", "/dev/zero"])
    expect(zero.code).toBe(2)
    expect(zero.stdout).toBe("")
    expect(zero.stderr).toMatch(/^svc diagnose: request_too_large: \/dev\/zero holds more/)
    expect(zero.stderr).toMatch(LIMIT_MESSAGE)
    // The limit is 5 MiB: what the reader holds beyond the run of a small file stays of that order (an unbounded reader takes gigabytes).
    expect(zero.peakBytes).toBeGreaterThan(0)
    expect(zero.peakBytes - small.peakBytes).toBeLessThan(64 * 1024 * 1024)
  })

  it("the limit is exact and SVC_API_MAX_BODY_BYTES sets it: 1024 bytes are read, 1025 are refused", async () => {
    const dir = freshDir()
    const body = JSON.stringify({ hello: "world" })
    const atLimit = join(dir, "at-limit.json")
    const overLimit = join(dir, "over-limit.json")
    writeFileSync(atLimit, body.padEnd(1024, " "))
    writeFileSync(overLimit, body.padEnd(1025, " "))
    const env = { SVC_API_MAX_BODY_BYTES: "1024" }
    const read = await svc(["normalize", atLimit], { env })
    expect(read.code).toBe(2)
    expect(read.stderr).toMatch(/unsupported_trace_format/)
    const refused = await svc(["normalize", overLimit], { env })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("holds more than 1024 bytes (the limit); raise it with --max-bytes or SVC_API_MAX_BODY_BYTES")
  })

  it("--max-bytes raises the limit for one command: the file refused at 1024 bytes is read with --max-bytes 2048, in-process", async () => {
    const dir = freshDir()
    const overLimit = join(dir, "over-limit.json")
    writeFileSync(overLimit, JSON.stringify({ hello: "world" }).padEnd(1500, " "))
    const env = { SVC_API_MAX_BODY_BYTES: "1024" }
    expect((await svc(["normalize", overLimit], { env })).stderr).toContain("holds more than 1024 bytes")
    const raised = await svc(["normalize", overLimit, "--max-bytes", "2048"], { env })
    // Read whole, then judged as a trace (this one is in no format): the limit no longer refuses it.
    expect(raised.stderr).not.toContain("holds more than")
    expect(raised.stderr).toMatch(/unsupported_trace_format/)
    expect((await svc(["normalize", overLimit, "--max-bytes", "100"], { env })).code).toBe(2)
  })

  it("standard input (-) past the limit: exit 2 with the limit message", async () => {
    const ran = await svc(["normalize", "-"], { env: { SVC_API_MAX_BODY_BYTES: "1024" }, input: " ".repeat(4096) })
    expect(ran.code).toBe(2)
    expect(ran.stdout).toBe("")
    expect(ran.stderr).toBe("svc normalize: request_too_large: standard input holds more than 1024 bytes (the limit); raise it with --max-bytes or SVC_API_MAX_BODY_BYTES\n")
  })

  it("--hints /dev/zero: exit 2 with the limit message", async () => {
    const ran = await svcWithPeak(["analyze", "lewin", trace, "--mode", "quick", "--hints", "/dev/zero"])
    expect(ran.code).toBe(2)
    expect(ran.stdout).toBe("")
    expect(ran.stderr).toMatch(/^svc analyze: request_too_large: the hints file \/dev\/zero holds more/)
    expect(ran.stderr).toMatch(LIMIT_MESSAGE)
  })

  it("against a service (--url) the read is bounded too: /dev/zero is refused before any request", async () => {
    const port = await freePort()
    const ran = await svc(["normalize", "/dev/zero", "--url", `http://127.0.0.1:${port}`])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(LIMIT_MESSAGE)
    expect(ran.stderr).not.toContain("unreachable")
  })
})

describe("a read that never comes", () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    it(`a FIFO with no writer: ${signal} ends the wait and the process exits ${code}`, async () => {
      const fifo = join(freshDir(), "trace.json")
      execFileSync("mkfifo", [fifo])
      let pid = 0
      const running = svc(["diagnose", fifo], { started: (child) => (pid = child) })
      // The file is open (the process waits on the read, past start-up and its signal handlers).
      await expect.poll(() => holdsOpen(pid, fifo), { timeout: 30_000, interval: 50 }).toBe(true)
      process.kill(pid, signal)
      const ran = await within(running, () => pid, 30_000, signal)
      expect(ran.signal).toBeNull()
      expect(ran.code).toBe(code)
      expect(ran.stdout).toBe("")
      expect(ran.stderr).toBe("")
    })
  }

  it("a FIFO whose writer comes later is read as a file is", async () => {
    const fifo = join(freshDir(), "trace.json")
    execFileSync("mkfifo", [fifo])
    let pid = 0
    const running = svc(["normalize", fifo], { started: (child) => (pid = child) })
    await expect.poll(() => holdsOpen(pid, fifo), { timeout: 30_000, interval: 50 }).toBe(true)
    writeFileSync(fifo, readFileSync(trace))
    const ran = await within(running, () => pid, 30_000, "the writer closed")
    expect(ran.stderr).toBe("")
    expect(ran.code).toBe(0)
    const direct = await svc(["normalize", trace])
    expect(ran.stdout).toBe(direct.stdout)
  })
})

describe("names printed escaped", () => {
  const HOSTILE = "run\u001b]0;pwned\u0007\u001b[2J\u009b\u202e.json"
  const ESCAPED = "run\\x1b]0;pwned\\x07\\x1b[2J\\x9b\\u202e.json"

  it("a file named with ESC, BEL, C1 and bidi controls: errors, usage messages and output hold the escaped form, never the raw bytes", async () => {
    const dir = freshDir()
    const invalid = join(dir, HOSTILE)
    writeFileSync(invalid, "{ not json")
    const valid = join(dir, "valid", HOSTILE)
    execFileSync("mkdir", [join(dir, "valid")])
    writeFileSync(valid, readFileSync(trace))
    const hints = join(dir, "hints", HOSTILE)
    execFileSync("mkdir", [join(dir, "hints")])
    writeFileSync(hints, "{ not json")
    const port = await freePort()

    const cases: ReadonlyArray<readonly [args: ReadonlyArray<string>, code: number, stderr: string]> = [
      [["normalize", invalid], 2, `svc normalize: ${join(dir, ESCAPED)}: the trace is not valid JSON`],
      [["normalize", join(dir, "missing", HOSTILE)], 2, `cannot read ${join(dir, "missing", ESCAPED)}: no such file`],
      [["analyze", "lewin", trace, "--hints", hints], 2, `--hints (${join(dir, "hints", ESCAPED)}) is not valid JSON`],
      [["diagnose", trace, "--out", join(dir, "missing", HOSTILE)], 2, `cannot write ${join(dir, "missing", ESCAPED)}`],
      [["diagnose", trace, "--max-patterns", `1${HOSTILE}`], 2, `'1${ESCAPED}' is not a integer`],
      [["patterns", "--url", `http://127.0.0.1:${port}/${HOSTILE}`], 3, `no service answered at http://127.0.0.1:${port}/${ESCAPED}`],
      [["analyze", HOSTILE, trace], 2, "no pattern named \"run\\u001b]0;pwned\\u0007\\u001b[2J\\x9b\\u202e.json\""]
    ]
    for (const [args, code, stderr] of cases) {
      const ran = await svc(args)
      expect(ran.stderr, args.join(" ")).toContain(stderr)
      expect(rawControls(ran.stderr), args.join(" ")).toEqual([])
      expect(rawControls(ran.stdout), args.join(" ")).toEqual([])
      expect(ran.code, `${args.join(" ")}: ${ran.stderr}`).toBe(code)
    }

    // The report itself (no provider: triage only, exit 3): SARIF's artifact is a percent-encoded URI.
    const sarif = await svc(["diagnose", valid, "--format", "sarif"], { cwd: dir })
    expect(sarif.code).toBe(3)
    expect(sarif.stdout).toContain("\"uri\": \"valid/run%1B%5D0%3Bpwned%07%1B%5B2J%C2%9B%E2%80%AE.json\"")
    expect(rawControls(sarif.stdout)).toEqual([])
    expect(rawControls(sarif.stderr)).toEqual([])
  })

  it("progress lines escape their labels (a pattern or an address from the command line)", () => {
    let written = ""
    const progress = makeProgress({ live: true, color: false, stream: { write: (text: string) => (written += text), columns: 200 } })
    progress.request(`lewin → http://svc/${HOSTILE}`).end(false)
    progress.stop()
    expect(written).toContain(`http://svc/${ESCAPED}`)
    expect(written).not.toContain("\u001b]0;")
    expect(written).not.toContain("\u0007")
    expect(written).not.toContain("\u202e")
  })

  it("printable: every control and bidi control as a visible escape, the rest untouched, escaping twice changes nothing", () => {
    const controls: ReadonlyArray<readonly [string, string]> = [
      ["\u0000", "\\x00"],
      ["\u0007", "\\x07"],
      ["\t", "\\x09"],
      ["\n", "\\x0a"],
      ["\r", "\\x0d"],
      ["\u001b", "\\x1b"],
      ["\u007f", "\\x7f"],
      ["\u0080", "\\x80"],
      ["\u009f", "\\x9f"],
      ["\u061c", "\\u061c"],
      ["\u200e", "\\u200e"],
      ["\u200f", "\\u200f"],
      ["\u202a", "\\u202a"],
      ["\u202e", "\\u202e"],
      ["\u2066", "\\u2066"],
      ["\u2069", "\\u2069"]
    ]
    for (const [raw, escaped] of controls) expect(printable(`a${raw}b`)).toBe(`a${escaped}b`)
    const plain = "run-été 日本 😀 \\x1b [brackets] ~"
    expect(printable(plain)).toBe(plain)
    expect(printable(printable(HOSTILE))).toBe(ESCAPED)
    expect(printableLines(`first ${HOSTILE}\n\tsecond\u0007`)).toBe(`first ${ESCAPED}\n\tsecond\\x07`)
  })
})
