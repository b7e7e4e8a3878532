/**
 * Many small requests, fast: raw HTTP/1.1 pipelined over a few keep-alive sockets. Used where a
 * test must send a very large number of requests (100,000 addresses or keys, 20,000 hostile
 * bodies). Bodies are raw bytes, so tests can send what no well-behaved client would.
 */
import { connect } from "node:net"

export interface PipelinedRequest {
  readonly method?: "GET" | "POST"
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: Buffer
}

export interface PipelinedResponse {
  readonly index: number
  readonly status: number
  readonly body: string
}

const encode = (request: PipelinedRequest): Buffer => {
  const headers = Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join("")
  const body = request.body ?? Buffer.alloc(0)
  const length = request.method === "POST" ? `Content-Length: ${body.length}\r\n` : ""
  return Buffer.concat([Buffer.from(`${request.method ?? "GET"} ${request.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}${length}\r\n`, "latin1"), body])
}

/** Sends every request; resolves with each response (status and body), in request order. */
export const pipelined = async (
  port: number,
  requests: ReadonlyArray<PipelinedRequest>,
  options: { readonly sockets?: number; readonly batch?: number; readonly keepBodies?: boolean } = {}
): Promise<Array<PipelinedResponse>> => {
  const sockets = options.sockets ?? 16
  const batch = options.batch ?? 64
  const responses: Array<PipelinedResponse> = []
  // Work queue shared by the sockets; a socket the server closes returns its unanswered requests.
  const queue: Array<number> = requests.map((_, i) => i)
  const runSocket = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (queue.length === 0) return resolve()
      const socket = connect(port, "127.0.0.1")
      let inFlight: Array<number> = []
      let buffer = Buffer.alloc(0)
      let finished = false
      const sendBatch = () => {
        if (queue.length === 0) {
          socket.end()
          return
        }
        inFlight = queue.splice(0, batch)
        socket.write(Buffer.concat(inFlight.map((i) => encode(requests[i]!))))
      }
      const done = () => {
        if (finished) return
        finished = true
        queue.unshift(...inFlight)
        inFlight = []
        resolve(queue.length > 0 ? runSocket() : undefined)
      }
      socket.on("connect", sendBatch)
      socket.on("data", (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk])
        for (;;) {
          const headerEnd = buffer.indexOf("\r\n\r\n")
          if (headerEnd < 0) return
          const head = buffer.subarray(0, headerEnd).toString("latin1")
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? "0")
          if (buffer.length < headerEnd + 4 + length) return
          const status = Number(head.slice(9, 12))
          const body = options.keepBodies === false ? "" : buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8")
          buffer = buffer.subarray(headerEnd + 4 + length)
          const index = inFlight.shift()
          if (index !== undefined) responses.push({ index, status, body })
          if (/\r\nconnection: close/i.test(head)) {
            socket.destroy()
            return done()
          }
          if (inFlight.length === 0) sendBatch()
        }
      })
      socket.on("close", done)
      socket.on("error", (error) => (inFlight.length > 0 ? done() : reject(error)))
    })
  await Promise.all(Array.from({ length: sockets }, runSocket))
  return responses.sort((a, b) => a.index - b.index)
}

/** Counts of each status code. */
export const statusCounts = (responses: ReadonlyArray<PipelinedResponse>) => {
  const counts = new Map<number, number>()
  for (const response of responses) counts.set(response.status, (counts.get(response.status) ?? 0) + 1)
  return counts
}

/** Compatibility for GET-only callers: counts of each status code. */
export const pipelinedGets = async (
  port: number,
  requests: ReadonlyArray<PipelinedRequest>,
  options: { readonly sockets?: number; readonly batch?: number } = {}
) => statusCounts(await pipelined(port, requests, { ...options, keepBodies: false }))
