/**
 * How the contract declares API keys. Keys are enforced by the edge (src/Auth/Guards.ts) before
 * routing and before any body byte is read, so no HttpApi middleware takes part; the contract
 * states the schemes for OpenAPI (DECISIONS §5): `Authorization: Bearer <key>` (preferred) or
 * `X-API-Key: <key>`, either one, on the catalogue and analyze endpoints. The typed client sends
 * the key itself (Client.ts).
 */
const REQUIRED_WHEN = "Required when SVC_API_REQUIRE_AUTH=true; otherwise a known key only names the rate-limit bucket."

export const securitySchemes = {
  bearer: { type: "http", scheme: "bearer", description: `Authorization: Bearer <API key> (preferred). ${REQUIRED_WHEN}` },
  apiKey: { type: "apiKey", name: "X-API-Key", in: "header", description: `X-API-Key: <API key>. ${REQUIRED_WHEN}` }
} as const

/** An operation's requirement: either scheme. */
export const apiKeyRequirement = { security: [{ bearer: [] }, { apiKey: [] }] } as const

/** Adds the schemes to the document's components. */
export const declareSecuritySchemes = (spec: Record<string, unknown>): Record<string, unknown> => {
  const components = spec["components"]
  return {
    ...spec,
    components: { ...(typeof components === "object" && components !== null ? components : {}), securitySchemes }
  }
}
