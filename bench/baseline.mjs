// The platform's own limit, for ratios: a plain node:http server that serves the same bytes as
// the service (GET) or does the same parsing and hashing of the same body (POST), and nothing else.
// Usage: node bench/baseline.mjs <responses.json>   (prints its port on stdout; listens on SVC_PORT
// when set, as the service does, so bench/startup.ts starts both the same way)
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"))
const gets = new Map(Object.entries(spec.get ?? {}).map(([path, body]) => [path, Buffer.from(body)]))
const postResponse = Buffer.from(spec.post ?? "{}")

const server = createServer((req, res) => {
  if (req.method === "GET") {
    const body = gets.get(req.url)
    if (body === undefined) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length }).end(body)
    return
  }
  const chunks = []
  req.on("data", (chunk) => chunks.push(chunk))
  req.on("end", () => {
    const text = Buffer.concat(chunks).toString("utf8")
    const parsed = JSON.parse(text)
    const digest = createHash("sha256").update(JSON.stringify(parsed)).digest("hex")
    res.writeHead(200, { "content-type": "application/json", "content-length": postResponse.length, "x-digest": digest })
    res.end(postResponse)
  })
})
server.keepAliveTimeout = 5000
server.listen({ port: Number(process.env.SVC_PORT ?? 0), host: "127.0.0.1", backlog: 4096 }, () => process.stdout.write(`${server.address().port}\n`))
