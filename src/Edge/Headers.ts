/**
 * What the edge reads of a request's headers: one value of a header, and the API key presented.
 */

/** Request headers as node:http and the Effect platform both hold them (lower-case names). */
export type HeaderBag = { readonly [name: string]: string | ReadonlyArray<string> | undefined }

/** A header's value when it was sent once (a repeated header is not trusted for anything). */
export const headerValue = (headers: HeaderBag, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === "string" ? value : undefined
}

/** The key a request presents: `Authorization: Bearer <key>` (preferred) or `X-API-Key: <key>`. */
export const presentedKey = (headers: HeaderBag): string | undefined => {
  const authorization = headerValue(headers, "authorization")
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (match?.[1] !== undefined) return match[1]
  }
  const apiKey = headerValue(headers, "x-api-key")
  return apiKey !== undefined && apiKey.length > 0 ? apiKey.trim() : undefined
}
