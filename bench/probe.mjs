// The built service (dist/server.mjs) with one addition for the bench: asked over the IPC channel
// of `fork`, it collects garbage and answers its live heap (process.memoryUsage().heapUsed).
// Run with --expose-gc.
process.on("message", (message) => {
  if (message !== "heap") return
  globalThis.gc?.()
  process.send?.({ heapUsed: process.memoryUsage().heapUsed })
})
await import("../dist/server.mjs")
