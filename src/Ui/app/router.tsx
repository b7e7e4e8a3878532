/**
 * History routing over the paths of DECISIONS §22: every page and every filter is in the URL, so
 * any state is a deep link (the service answers the shell for every `/ui` path).
 */
import type { ComponentChildren, TargetedMouseEvent } from "preact"
import { useEffect, useState } from "preact/hooks"

export type Route =
  | { readonly page: "runs" }
  | { readonly page: "run"; readonly id: string }
  | { readonly page: "problems" }
  | { readonly page: "problem"; readonly id: string }
  | { readonly page: "compare" }
  | { readonly page: "digest" }
  | { readonly page: "submit" }
  | { readonly page: "connect" }
  | { readonly page: "sign-in" }
  | { readonly page: "not-found" }

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

export const routeOf = (pathname: string): Route => {
  const parts = pathname.replace(/\/+$/, "").split("/").slice(2)
  const [first, second, ...rest] = parts
  if (rest.length > 0) return { page: "not-found" }
  if (first === undefined || first === "runs") return second === undefined ? { page: "runs" } : { page: "run", id: decoded(second) }
  if (first === "problems") return second === undefined ? { page: "problems" } : { page: "problem", id: decoded(second) }
  if (second !== undefined) return { page: "not-found" }
  switch (first) {
    case "compare":
    case "digest":
    case "submit":
    case "connect":
    case "sign-in":
      return { page: first }
    default:
      return { page: "not-found" }
  }
}

const listeners = new Set<() => void>()
const changed = () => {
  for (const listener of listeners) listener()
}
window.addEventListener("popstate", changed)

/** Goes to a path of the dashboard (pushes history; `replace` for a redirect). */
export const navigate = (href: string, replace = false): void => {
  if (replace) history.replaceState(null, "", href)
  else history.pushState(null, "", href)
  changed()
  window.scrollTo(0, 0)
}

/** The current location (re-rendered when it changes). */
export const useLocation = (): { readonly pathname: string; readonly search: URLSearchParams; readonly hash: string } => {
  const [, setTick] = useState(0)
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1)
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [])
  return { pathname: location.pathname, search: new URLSearchParams(location.search), hash: location.hash }
}

/** A path with a query of the non-empty values. */
export const hrefOf = (pathname: string, query: Readonly<Record<string, string | undefined | null>>): string => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") params.set(name, value)
  const text = params.toString()
  return text.length === 0 ? pathname : `${pathname}?${text}`
}

/** Only a path of the dashboard is a place to return to after signing in (never another origin). */
export const safeReturn = (next: string | null): string => (next !== null && /^\/ui(\/|\?|$)/.test(next) ? next : "/ui/runs")

export const Link = (props: {
  readonly href: string
  readonly children: ComponentChildren
  readonly class?: string | undefined
  readonly "aria-current"?: "page" | undefined
}) => {
  const follow = (event: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(props.href)
  }
  return (
    <a href={props.href} class={props.class} aria-current={props["aria-current"]} onClick={follow}>
      {props.children}
    </a>
  )
}
