/**
 * Connect: how to point an OpenTelemetry exporter at this service (DECISIONS §18, §25): the
 * endpoint, the key's header (a placeholder, never the signed-in key), OpenLLMetry's base URL, and
 * each instrumentation's switch that turns message content on (without it, only the checks read a
 * run).
 */
import { CONTENT_SETTINGS, INSTRUMENTATIONS } from "../../../Traces/ContentSettings.js"
import { Page } from "../ui.js"

export const ConnectPage = (props: { readonly authOff: boolean }) => {
  const origin = location.origin
  const headers = props.authOff ? "" : "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20<your-ingest-key>\n"
  const traceloopKey = props.authOff ? "" : "TRACELOOP_API_KEY=<your-ingest-key>\n"
  return (
    <Page title="Connect">
      <p>Send your agents' traces here with OpenTelemetry: any SDK's OTLP/HTTP exporter, JSON or protobuf.</p>
      <h2>Environment</h2>
      <pre class="code">{`OTEL_EXPORTER_OTLP_ENDPOINT=${origin}\nOTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf\n${headers}`}</pre>
      <p>
        The SDK adds <code>/v1/traces</code> and <code>/v1/logs</code> itself. A finished trace with GenAI spans becomes a run; failed ones are diagnosed by default.
        {props.authOff
          ? " This service requires no key."
          : " Use a key of role ingest: it may send traces and nothing else. The key goes in the authorization header, with the space after Bearer written %20."}
      </p>
      <h2>OpenLLMetry (Traceloop)</h2>
      <pre class="code">{`TRACELOOP_BASE_URL=${origin}\n${traceloopKey}`}</pre>
      <p>
        OpenLLMetry ignores <code>OTEL_EXPORTER_OTLP_ENDPOINT</code>.
        {props.authOff ? null : " Give the key in TRACELOOP_API_KEY: TRACELOOP_HEADERS is not URL-decoded, so Bearer%20 there is refused (401)."}
      </p>
      <h2>Message content</h2>
      <p>
        Most instrumentations record what ran but not what was said. Without content the checks still read every run (tool errors, loops, limits); the lenses, which explain
        why, need it. Turn it on where the agent runs:
      </p>
      <table class="list">
        <caption class="visually-hidden">The setting that turns message content on, per instrumentation</caption>
        <thead>
          <tr>
            <th scope="col">Instrumentation</th>
            <th scope="col">Setting</th>
          </tr>
        </thead>
        <tbody>
          {INSTRUMENTATIONS.map((instrumentation) => (
            <tr key={instrumentation} data-instrumentation={instrumentation}>
              <td>{CONTENT_SETTINGS[instrumentation].name}</td>
              <td>
                <code>{CONTENT_SETTINGS[instrumentation].setting}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Labels</h2>
      <p>
        Runs take their labels from the resource: <code>service.name</code>, <code>service.version</code> (the version that compare and resolved-in-version read) and{" "}
        <code>deployment.environment.name</code>.
      </p>
      <h2>One trace by hand</h2>
      <pre class="code">{`curl -X POST ${origin}/v1/runs \\\n  -H 'content-type: application/json'${props.authOff ? "" : " \\\n  -H 'authorization: Bearer <your-key>'"} \\\n  --data-binary @trace.json`}</pre>
    </Page>
  )
}
