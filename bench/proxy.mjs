// The floor for a burst of analyses: a plain node:http proxy that does the least an analysis must
// do, and nothing else: read and parse the body, make one request to the model provider (the same
// double, Anthropic Messages wire, a forced tool call), parse its answer and send back the object.
// Usage: node bench/proxy.mjs <provider double url>   (prints its port on stdout)
import { Agent, createServer, request } from "node:http"
import { setTimeout } from "node:timers"

const upstream = new URL("/v1/messages", process.argv[2])
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })

const server = createServer((req, res) => {
  const chunks = []
  req.on("data", (chunk) => chunks.push(chunk))
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    const payload = JSON.stringify({
      model: "claude-sonnet-4-6",
      max_tokens: 4096,
      system: "Analyse this agent run.",
      messages: [{ role: "user", content: JSON.stringify(body.trace) }],
      tools: [{ name: "LewinDetection", description: "Respond with a JSON object", input_schema: { type: "object" } }],
      tool_choice: { type: "tool", name: "LewinDetection" }
    })
    // Like the service, a connection error to the provider is retried with a growing pause: a
    // burst of 10,000 requests in and 10,000 out runs into the process's file limit (EMFILE).
    const send = (attempt) => {
      const call = request(upstream, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } }, (answer) => {
        const parts = []
        answer.on("data", (chunk) => parts.push(chunk))
        answer.on("end", () => {
          const message = JSON.parse(Buffer.concat(parts).toString("utf8"))
          const out = JSON.stringify({ pattern: "lewin", detection: message.content?.[0]?.input ?? null })
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) }).end(out)
        })
      })
      call.on("error", (error) => (attempt < 10 ? setTimeout(() => send(attempt + 1), 100 * attempt) : res.writeHead(502).end(String(error.code ?? error.message))))
      call.end(payload)
    }
    send(1)
  })
})
server.keepAliveTimeout = 5000
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => process.stdout.write(`${server.address().port}\n`))
