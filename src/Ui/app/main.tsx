/**
 * The dashboard (DECISIONS §22, docs/ui.md): Preact pages over the typed client, served as a
 * static shell by the service itself. On start it asks whether the service wants a key (a banner
 * says so when it does not); with auth on, a page opened without a key goes to the sign-in first
 * and comes back to it, and any 401 does the same.
 */
import "./style.css"
import { render } from "preact"
import { useEffect } from "preact/hooks"
import { clearKey, readKey, whenUnauthorized } from "./api.js"
import { ComparePage } from "./pages/Compare.js"
import { ConnectPage } from "./pages/Connect.js"
import { DigestPage } from "./pages/Digest.js"
import { ProblemPage } from "./pages/Problem.js"
import { ProblemsPage } from "./pages/Problems.js"
import { RunPage } from "./pages/Run.js"
import { RunsPage } from "./pages/Runs.js"
import { SignInPage } from "./pages/SignIn.js"
import { SubmitPage } from "./pages/Submit.js"
import { hrefOf, Link, navigate, type Route, routeOf, useLocation } from "./router.js"
import { Page } from "./ui.js"

const NAV: ReadonlyArray<{ readonly href: string; readonly label: string; readonly pages: ReadonlyArray<Route["page"]> }> = [
  { href: "/ui/runs", label: "Runs", pages: ["runs", "run"] },
  { href: "/ui/problems", label: "Problems", pages: ["problems", "problem"] },
  { href: "/ui/compare", label: "Compare", pages: ["compare"] },
  { href: "/ui/digest", label: "Digest", pages: ["digest"] },
  { href: "/ui/submit", label: "Submit", pages: ["submit"] },
  { href: "/ui/connect", label: "Connect", pages: ["connect"] }
]

type Auth = "required" | "off"

/** Whether the service asks for a key: the shell says so (src/Ui/Shell.ts). */
const AUTH_MODE: Auth = document.querySelector('meta[name="svc-auth"]')?.getAttribute("content") === "off" ? "off" : "required"

/** The sign-in, asked to come back here. */
const toSignIn = () => navigate(hrefOf("/ui/sign-in", { next: `${location.pathname}${location.search}${location.hash}` }), true)

const PageOf = (props: { readonly route: Route; readonly authOff: boolean }) => {
  const { route } = props
  switch (route.page) {
    case "runs":
      return <RunsPage />
    case "run":
      return <RunPage id={route.id} />
    case "problems":
      return <ProblemsPage />
    case "problem":
      return <ProblemPage id={route.id} />
    case "compare":
      return <ComparePage />
    case "digest":
      return <DigestPage />
    case "submit":
      return <SubmitPage />
    case "connect":
      return <ConnectPage authOff={props.authOff} />
    case "sign-in":
      return <SignInPage />
    case "not-found":
      return (
        <Page title="Not found">
          <p>
            No such page. <Link href="/ui/runs">Runs</Link>
          </p>
        </Page>
      )
  }
}

const App = () => {
  const { pathname } = useLocation()
  const route = routeOf(pathname)
  const auth = AUTH_MODE
  useEffect(() => {
    whenUnauthorized(() => {
      clearKey()
      toSignIn()
    })
  }, [])
  const signedIn = readKey() !== null
  useEffect(() => {
    if (auth === "required" && !signedIn && route.page !== "sign-in") toSignIn()
  }, [auth, signedIn, route.page])

  const signOut = () => {
    clearKey()
    navigate("/ui/sign-in")
  }
  const showPage = auth === "off" || (auth === "required" && (signedIn || route.page === "sign-in"))
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link class="brand" href="/ui/runs">
          pattern-analysis-service
        </Link>
        {route.page === "sign-in" ? null : (
          <nav aria-label="Pages">
            <ul>
              {NAV.map((item) => (
                <li key={item.href}>
                  <Link href={item.href} aria-current={item.pages.includes(route.page) ? "page" : undefined}>
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {auth === "required" && signedIn ? (
          <button type="button" class="sign-out" onClick={signOut}>
            Sign out
          </button>
        ) : null}
      </header>
      {auth === "off" ? (
        <p class="banner" role="note">
          Authentication is off: anyone who can reach this service can read and change its runs and problems.
        </p>
      ) : null}
      <main id="main">
        {showPage ? <PageOf route={route} authOff={auth === "off"} /> : null}
      </main>
    </>
  )
}

const root = document.getElementById("app")
if (root !== null) render(<App />, root)
