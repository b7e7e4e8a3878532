/**
 * What the pages share: a page's heading (which takes the focus when the page opens, so keyboard
 * and screen-reader users land on it), badges, times, notices, the pager and the trend chart.
 * Everything renders as text; nothing here parses markup.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useRef } from "preact/hooks"
import { Link } from "./router.js"

export const Page = (props: { readonly title: string; readonly children: ComponentChildren; readonly actions?: ComponentChildren }) => {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${props.title} · pattern-analysis-service`
    heading.current?.focus({ preventScroll: true })
  }, [props.title])
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions}
      </header>
      {props.children}
    </section>
  )
}

export const Badge = (props: { readonly kind: string; readonly value: string }) => <span class={`badge ${props.kind}-${props.value}`}>{props.value}</span>

/** A time as the reader's locale writes it, the ISO time kept for machines. */
export const When = (props: { readonly iso: string | null | undefined }) => {
  if (props.iso === null || props.iso === undefined) return <span class="muted">–</span>
  const date = new Date(props.iso)
  return <time dateTime={props.iso}>{Number.isNaN(date.getTime()) ? props.iso : date.toLocaleString()}</time>
}

export const Notice = (props: { readonly kind: "error" | "info"; readonly children: ComponentChildren }) => (
  <p class={`notice notice-${props.kind}`} role={props.kind === "error" ? "alert" : "status"}>
    {props.children}
  </p>
)

export const Loading = () => (
  <p class="muted" role="status">
    Loading…
  </p>
)

/** The next page's link (the cursor in the URL), and back to the first. */
export const Pager = (props: { readonly first: string | null; readonly next: string | null }) =>
  props.first === null && props.next === null ? null : (
    <nav class="pager" aria-label="Pages">
      {props.first === null ? null : <Link href={props.first}>First page</Link>}
      {props.next === null ? null : <Link href={props.next}>Next page</Link>}
    </nav>
  )

/** Runs per UTC day as bars, the days without runs included; the numbers also as the chart's label. */
export const TrendChart = (props: { readonly days: ReadonlyArray<{ readonly day: string; readonly runs: number }>; readonly span?: number }) => {
  const span = props.span ?? 30
  const byDay = new Map(props.days.map((entry) => [entry.day, entry.runs]))
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate())
  const days = Array.from({ length: span }, (_, index) => new Date(today - (span - 1 - index) * 86_400_000).toISOString().slice(0, 10))
  const counts = days.map((day) => byDay.get(day) ?? 0)
  const max = Math.max(1, ...counts)
  const width = span * 8
  const total = counts.reduce((sum, count) => sum + count, 0)
  const label = `Runs per day over the last ${span} UTC days: ${total} in all, at most ${Math.max(...counts)} in a day.`
  return (
    <svg class="trend" viewBox={`0 0 ${width} 40`} width={width} height={40} role="img" aria-label={label}>
      <title>{label}</title>
      {counts.map((count, index) => {
        const height = count === 0 ? 1 : Math.max(2, Math.round((count / max) * 38))
        return <rect key={days[index]} x={index * 8 + 1} y={40 - height} width={6} height={height} class={count === 0 ? "bar-empty" : "bar"} />
      })}
    </svg>
  )
}

/** `key:value` pairs as chips. */
export const Labels = (props: { readonly labels: Readonly<Record<string, string>> }) => {
  const entries = Object.entries(props.labels)
  if (entries.length === 0) return <span class="muted">–</span>
  return (
    <ul class="chips">
      {entries.map(([key, value]) => (
        <li key={key}>
          <span class="chip">
            {key}: {value}
          </span>
        </li>
      ))}
    </ul>
  )
}
