// What the fixture recordings that run a real CLI share (codex.mjs, gemini-cli.mjs): running it
// without blocking this process (the loopback double answers from this event loop meanwhile), and
// finding the files it wrote.
import { spawn } from "node:child_process"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { clearTimeout, setTimeout } from "node:timers"

/** Runs `npx --yes <args>` in `cwd` with `env`; its status and output, killed after `timeoutMs`. */
export const runTool = (args, { cwd, env, timeoutMs }) =>
  new Promise((resolve, reject) => {
    const child = spawn("npx", ["--yes", ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs)
    child.on("error", reject)
    child.on("close", (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
  })

/** The files under `dir` whose path passes `test`. */
export const filesUnder = (dir, test) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path, test) : test(path) ? [path] : []
  })
