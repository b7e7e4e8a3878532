/**
 * Slow and abusive clients, and auth abuse: the server keeps answering /healthz quickly while
 * slowloris connections, a body that never finishes and 1,000 idle keep-alive connections hold
 * sockets; 100,000 wrong keys are all refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { connect, type Socket } from "node:net"
import { pipelined, statusCounts } from "../support/Pipelined.js"
import { type RunningService, startService } from "../support/Service.js"

const KEY = "abuse-key-0123456789abcdef"
let service: RunningService
const sockets: Array<Socket> = []
beforeAll(async () => {
  service = await startService({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `ops=${KEY}` })
})
afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await service.close()
})

const open = () =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(service.port, "127.0.0.1", () => resolve(socket))
    socket.on("error", reject)
    sockets.push(socket)
  })

const healthzLatencies = async (n: number) => {
  const times: Array<number> = []
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    const response = await fetch(`${service.url}/healthz`)
    await response.text()
    expect(response.status).toBe(200)
    times.push(performance.now() - started)
  }
  return times.sort((a, b) => a - b)
}

describe("slow and abusive clients", () => {
  it("keeps answering /healthz under slowloris, a never-ending body and 1,000 idle connections, its median within 10x of its own at rest", async () => {
    // The baseline, measured in the same run: a loaded machine slows both alike (an absolute bound
    // in milliseconds is one a busy CI machine can overrun)
    const rest = await healthzLatencies(30)
    const restMedian = rest[Math.floor(rest.length / 2)] ?? Number.POSITIVE_INFINITY
    // 50 slowloris connections: headers trickle one byte at a time and never end.
    const slow = await Promise.all(Array.from({ length: 50 }, open))
    const trickle = setInterval(() => {
      for (const socket of slow) if (!socket.destroyed) socket.write("X")
    }, 50)
    for (const socket of slow) socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    // A body that never finishes.
    const unfinished = await open()
    unfinished.write(`POST /v1/analyze/lewin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"task":`)
    // 1,000 idle keep-alive connections, each after one completed request.
    const idle = await Promise.all(Array.from({ length: 1000 }, open))
    await Promise.all(idle.map((socket) =>
      new Promise<void>((resolve) => {
        socket.once("data", () => resolve())
        socket.write("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
      })
    ))
    try {
      const times = await healthzLatencies(30)
      const median = times[Math.floor(times.length / 2)] ?? Number.POSITIVE_INFINITY
      console.info(`/healthz under abuse: median ${median.toFixed(1)} ms, max ${times.at(-1)?.toFixed(1)} ms; at rest: median ${restMedian.toFixed(1)} ms`)
      expect(median).toBeLessThan(10 * restMedian)
    } finally {
      clearInterval(trickle)
    }
  }, 60_000)
})

describe("auth abuse", () => {
  it("refuses 100,000 wrong keys, whichever header carries them", async () => {
    const requests = Array.from({ length: 100_000 }, (_, i) => ({
      path: "/v1/patterns/lewin",
      headers: i % 2 === 0 ? { authorization: `Bearer wrong-${i}-0123456789abcdef` } : { "x-api-key": `${KEY.slice(0, -1)}${i % 10}` }
    }))
    const counts = statusCounts(await pipelined(service.port, requests, { keepBodies: false }))
    expect(counts.get(401)).toBe(100_000)
    expect((await fetch(`${service.url}/v1/patterns/lewin`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200)
  }, 180_000)
})
