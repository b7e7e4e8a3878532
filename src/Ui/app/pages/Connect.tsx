/** Connect: how to point an OpenTelemetry exporter at this service (DECISIONS §18); the key is a placeholder, never the signed-in one. */
import { Page } from "../ui.js"

export const ConnectPage = (props: { readonly authOff: boolean }) => {
  const origin = location.origin
  const headers = props.authOff ? "" : "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20<your-ingest-key>\n"
  return (
    <Page title="Connect">
      <p>Send your agents' traces here with OpenTelemetry: any SDK's OTLP/HTTP exporter, JSON or protobuf.</p>
      <h2>Environment</h2>
      <pre class="code">{`OTEL_EXPORTER_OTLP_ENDPOINT=${origin}\nOTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf\n${headers}`}</pre>
      <p>
        The SDK adds <code>/v1/traces</code> and <code>/v1/logs</code> itself. A finished trace with GenAI spans becomes a run; failed ones are diagnosed by default.
        {props.authOff ? null : " Use a key of role ingest: it may send traces and nothing else."}
      </p>
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
