/**
 * The provider double as its own process for the bench (so client, service and double each have
 * their own sockets). Usage: tsx bench/double.ts <delayMs>; prints "<double url> <stats url>".
 * GET on the stats url answers the number of model calls received so far.
 */
import { createServer } from "node:http"
import { defaultReply, startProviderDouble } from "../test/support/ProviderDouble.js"

const delay = Number(process.argv[2] ?? "0")
const double = await startProviderDouble()
let calls = 0
double.script = (call) => {
  calls += 1
  // The bench needs counts, not recorded requests: keep memory flat over long runs.
  double.calls.length = 0
  const reply = defaultReply(call)
  return delay > 0 ? { kind: "delay", ms: delay, then: reply } : reply
}
const stats = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ calls }))
})
stats.listen(0, "127.0.0.1", () => {
  const address = stats.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  process.stdout.write(`${double.url} http://127.0.0.1:${port}\n`)
})
