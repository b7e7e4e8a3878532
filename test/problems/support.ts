/**
 * A webhook receiver's side of the alerts (DECISIONS §19), written independently of src/: how a
 * receiver checks a call's `X-Svc-Signature` (docs/problems.md shows the same check).
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * Whether `header` (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`) signs `body` under `secret`: one of its
 * `v1=` values is the hex HMAC-SHA256 of `${t}.${body}` (compared in constant time), and `t` is
 * within `toleranceSeconds` of `nowSeconds` (against replays).
 */
export const verifySignature = (header: string, body: string, secret: string, nowSeconds: number, toleranceSeconds: number): boolean => {
  const parts = header.split(",").map((part) => part.trim())
  const stamps = parts.filter((part) => part.startsWith("t=")).map((part) => part.slice(2))
  const [stamp] = stamps
  if (stamps.length !== 1 || stamp === undefined || !/^\d+$/.test(stamp)) return false
  if (Math.abs(nowSeconds - Number(stamp)) > toleranceSeconds) return false
  const expected = Buffer.from(createHmac("sha256", secret).update(`${stamp}.${body}`).digest("hex"), "utf8")
  return parts
    .filter((part) => part.startsWith("v1="))
    .map((part) => Buffer.from(part.slice(3), "utf8"))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected))
}

