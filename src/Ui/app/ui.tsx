/**
 * What the pages share: a page's heading (which takes the focus when the page opens, so keyboard
 * and screen-reader users land on it), badges, times, notices, the pager and the trend chart.
 * Everything renders as text; nothing here parses markup.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useRef } from "preact/hooks"
import { hrefOf, Link, navigate, useLocation } from "./router.js"

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

/** Counts per UTC day over the last `span` days, oldest first, today last, from `{day, runs}` entries. */
export const countsOf = (days: ReadonlyArray<{ readonly day: string; readonly runs: number }>, span: number): ReadonlyArray<number> => {
  const byDay = new Map(days.map((entry) => [entry.day, entry.runs]))
  const today = Math.floor(Date.now() / 86_400_000) * 86_400_000
  return Array.from({ length: span }, (_, index) => byDay.get(new Date(today - (span - 1 - index) * 86_400_000).toISOString().slice(0, 10)) ?? 0)
}

/** Runs per UTC day as bars (oldest first, today last), the days without runs included; the numbers also as the chart's label. */
export const TrendChart = (props: { readonly counts: ReadonlyArray<number> }) => {
  const { counts } = props
  const max = Math.max(1, ...counts)
  const width = counts.length * 8
  const total = counts.reduce((sum, count) => sum + count, 0)
  const label = `Runs per day over the last ${counts.length} UTC days: ${total} in all, at most ${Math.max(0, ...counts)} in a day.`
  return (
    <svg class="trend" viewBox={`0 0 ${width} 40`} width={width} height={40} role="img" aria-label={label}>
      <title>{label}</title>
      {counts.map((count, index) => {
        const height = count === 0 ? 1 : Math.max(2, Math.round((count / max) * 38))
        return <rect key={index} x={index * 8 + 1} y={40 - height} width={6} height={height} class={count === 0 ? "bar-empty" : "bar"} />
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

/** A field of a page's filter form: a choice (with "any"), or text, a search or a date. */
export interface Field {
  readonly name: string
  readonly label: string
  readonly options?: ReadonlyArray<string>
  readonly type?: "text" | "search" | "date"
  readonly placeholder?: string
  /** Shown and sent when the URL has none (compare's label). */
  readonly initial?: string
  readonly required?: boolean
}

/** A field's input of its type. */
const Input = (props: { readonly field: Field; readonly value: string }) => {
  const { field, value } = props
  const shared = { name: field.name, defaultValue: value, placeholder: field.placeholder ?? "", required: field.required === true }
  switch (field.type) {
    case "date":
      return <input type="date" {...shared} />
    case "search":
      return <input type="search" {...shared} />
    default:
      return <input type="text" {...shared} />
  }
}

/**
 * A page's filters as a form whose state is the URL: applying it goes to `path` with the filled
 * fields as its query (a new page of results: no cursor).
 */
export const FilterForm = (props: { readonly path: string; readonly fields: ReadonlyArray<Field>; readonly label: string; readonly submit?: string; readonly search?: boolean }) => {
  const { search } = useLocation()
  const apply = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget
    if (!(form instanceof HTMLFormElement)) return
    const data = new FormData(form)
    const query: Record<string, string> = {}
    for (const { name } of props.fields) {
      const value = data.get(name)
      if (typeof value === "string" && value.trim() !== "") query[name] = value.trim()
    }
    navigate(hrefOf(props.path, query))
  }
  const filtered = props.fields.some((field) => field.initial === undefined && search.get(field.name) !== null)
  return (
    <form class="filters" onSubmit={apply} role={props.search === true ? "search" : undefined} aria-label={props.label} key={search.toString()}>
      {props.fields.map((field) => {
        const value = search.get(field.name) ?? field.initial ?? ""
        return (
          <label key={field.name}>
            {field.label}
            {field.options === undefined ? (
              <Input field={field} value={value} />
            ) : (
              <select name={field.name} defaultValue={value}>
                <option value="">any</option>
                {field.options.map((option) => <option key={option} value={option}>{option}</option>)}
              </select>
            )}
          </label>
        )
      })}
      <button type="submit">{props.submit ?? "Apply"}</button>
      {filtered ? <Link href={props.path}>Clear</Link> : null}
    </form>
  )
}

/** A finding's verified quotes, each linked to the event it quotes (`eventHref`), or its reference when it names none. */
export const Evidence = (props: {
  readonly evidence: ReadonlyArray<{ readonly quote: string; readonly actor: string | null; readonly event: number | null; readonly ref: string }>
  readonly eventHref: (event: number) => string
}) => (
  <ul class="evidence">
    {props.evidence.map((item, index) => (
      <li key={index}>
        <blockquote>{item.quote}</blockquote>
        <span class="muted">
          {item.actor ?? "unknown actor"} · {item.event === null ? item.ref : <EventLink href={props.eventHref(item.event)} event={item.event} />}
        </span>
      </li>
    ))}
  </ul>
)

/** A link to an event: on this page (`#event-3`, the browser's own anchor) or on a run's page. */
const EventLink = (props: { readonly href: string; readonly event: number }) =>
  props.href.startsWith("#") ? <a href={props.href}>event {props.event}</a> : <Link href={props.href}>event {props.event}</Link>
