/** Where the service's files are unless configured: its home, and the patterns it ships with. */
import { Config, Option } from "effect"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { setting } from "./Settings.js"

/** SVC_HOME's default. */
export const defaultHome = join(homedir(), ".svc")

/**
 * The checkout's patterns/ folder: the nearest ancestor of `from` that holds
 * patterns/catalogue.json (src/ when run from source, dist/chunks/ when built); none: `from`/../patterns.
 */
export const bundledPatternsDir = (from: string): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "patterns")
    if (existsSync(join(candidate, "catalogue.json"))) return candidate
    if (dirname(dir) === dir) return resolve(from, "..", "patterns")
  }
}

/** A directory, resolved against the working directory; with `expandHome`, a leading `~` is the user's home. */
export const directory = (name: string, options: { readonly expandHome?: boolean } = {}): Config.Config<string> =>
  setting(name, "a directory path", (text) =>
    text.length === 0
      ? Option.none()
      : Option.some(resolve(options.expandHome === true ? text.replace(/^~(?=$|\/)/, homedir()) : text)))
