/**
 * What the bench scripts share (bench/run.ts, bench/agents.ts): a free loopback port, stopping a
 * child process the way the service drains, a process's CPU time from /proc, medians and rounding.
 */
import type { ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer as createNetServer } from "node:net"

/** A loopback port free at the moment of asking. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createNetServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** SIGINT (the service drains without the SIGTERM routing delay and --cpu-prof writes its profile), SIGKILL after 10 s. */
export const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("exit", () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill("SIGINT")
  })

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
export const cpuMsOf = (pid: number | undefined): number => {
  if (pid === undefined) return Number.NaN
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

export const median = (xs: ReadonlyArray<number>) => {
  const sorted = xs.slice().sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] ?? Number.NaN : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

export const round2 = (x: number) => Math.round(x * 100) / 100
