/**
 * Where the service's files are unless configured: its home, and the patterns it ships with; and
 * the modes of what it creates in its home (its user's alone: traces, reports and keys live there).
 */
import * as Config from "effect/Config"
import * as Option from "effect/Option"
import { existsSync } from "node:fs"
import { mkdir } from "node:fs/promises"
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

/** The mode of every folder the service creates in SVC_HOME, and of SVC_HOME itself. */
export const PRIVATE_DIR = 0o700
/** The mode of every file the service creates in SVC_HOME. */
export const PRIVATE_FILE = 0o600

/**
 * Creates a folder (and its missing parents) for the service's user alone; the first folder made,
 * undefined when it existed. Every writer in SVC_HOME creates its folders through this.
 */
export const makePrivateDir = (dir: string): Promise<string | undefined> => mkdir(dir, { recursive: true, mode: PRIVATE_DIR })
