/**
 * Sign-in: an API key for this tab only (sessionStorage), checked against the service before it
 * is kept; then back to the page asked for. The key is never put in a URL.
 */
import { useState } from "preact/hooks"
import { checkKey, saveKey } from "../api.js"
import { navigate, safeReturn, useLocation } from "../router.js"
import { Notice, Page } from "../ui.js"

const REFUSALS = {
  refused: "The service refused this key.",
  forbidden: "This key may not read runs (an ingest key sends traces only); use a key of role read or admin.",
  unreachable: "The service could not be reached."
} as const

export const SignInPage = () => {
  const { search } = useLocation()
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget
    if (!(form instanceof HTMLFormElement)) return
    const key = new FormData(form).get("key")
    if (typeof key !== "string" || key.trim() === "") return setError("Enter an API key.")
    setBusy(true)
    void checkKey(key.trim()).then((outcome) => {
      setBusy(false)
      if (outcome !== "ok") return setError(REFUSALS[outcome])
      saveKey(key.trim())
      navigate(safeReturn(search.get("next")), true)
    })
  }
  return (
    <Page title="Sign in">
      <form class="sign-in" onSubmit={submit}>
        <label for="key">API key</label>
        <input id="key" name="key" type="password" autoComplete="off" spellcheck={false} required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      {error === null ? null : <Notice kind="error">{error}</Notice>}
      <p class="muted">The key stays in this tab until you sign out or close it.</p>
    </Page>
  )
}
