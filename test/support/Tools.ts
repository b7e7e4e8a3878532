/**
 * External tools the tests use (promtool, chromium). They are installed by the global test setup
 * (test/setup/global.ts) or .ci/run when missing; a test that needs one fails loudly if it is
 * still absent, never skips.
 */
import { execFileSync } from "node:child_process"

export const which = (command: string): string | undefined => {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined
  } catch {
    return undefined
  }
}

export const requireTool = (command: string, debianPackage: string): string => {
  const path = which(command)
  if (path === undefined) {
    throw new Error(`${command} is not installed: the test setup installs Debian's ${debianPackage} (apt-get install ${debianPackage})`)
  }
  return path
}
