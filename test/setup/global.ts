/**
 * Global test setup: makes sure the tools the tests drive exist on this machine (Debian's
 * chromium, prometheus/promtool, redis-server, postgresql (its server programs live off the PATH,
 * in /usr/lib/postgresql/<version>/bin), openssl; tmux, zsh and fish for the `svc` terminal and completion tests),
 * installing them when missing, and builds dist/ for the tests
 * that start the production bundle. Runs once per `npm test`.
 *
 * Every file the run writes to the OS's temporary directory (homes, stores, PostgreSQL clusters,
 * packed tarballs, the services' compile caches) lands in one scratch directory made here, as
 * TMPDIR for the test workers and every process they start; the teardown removes it. Before this,
 * each full run left about 1.2 GB behind in /tmp (589 clusters of 227 MB after 65 runs), until a
 * run on the same disk failed with ENOSPC.
 */
import { execFileSync } from "node:child_process"
import { postgresBin } from "../support/Postgres.js"
import { scratchAsTmpdir } from "../support/Scratch.js"
import { which } from "../support/Tools.js"

const DEBIAN_PACKAGES: ReadonlyArray<readonly [command: string, debianPackage: string]> = [
  ["chromium", "chromium"],
  ["promtool", "prometheus"],
  ["redis-server", "redis-server"],
  ["openssl", "openssl"],
  ["tmux", "tmux"],
  ["zsh", "zsh"],
  ["fish", "fish"]
]

export default function setup() {
  // Each test project runs the global setup; the tools and the build are needed once per run.
  if (process.env["SVC_TEST_SETUP_DONE"] === "1") return
  process.env["SVC_TEST_SETUP_DONE"] = "1"
  const scratch = scratchAsTmpdir("svc-test-run-")
  const missing = DEBIAN_PACKAGES.filter(([command]) => which(command) === undefined).map(([, pkg]) => pkg)
  if (postgresBin() === undefined) missing.push("postgresql")
  if (missing.length > 0) {
    if (which("apt-get") === undefined) {
      throw new Error(`the tests need ${missing.join(", ")}; install them (no apt-get on this machine)`)
    }
    process.stdout.write(`test setup: installing ${missing.join(", ")} with apt-get\n`)
    execFileSync("sh", ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq " + missing.join(" ")], {
      stdio: "inherit"
    })
  }
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
  return scratch.remove
}
