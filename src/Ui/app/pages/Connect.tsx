/** Connect: how to point an OpenTelemetry exporter at this service (DECISIONS §18, docs/otlp.md); the key is a placeholder, never the signed-in one. */
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
      <p>Without message content a run keeps its checks, but no lens reads it. Turn content on where the agents run:</p>
      <ul>
        <li>OpenTelemetry GenAI instrumentations: <code>OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true</code>, and export logs too (they carry the messages)</li>
        <li>OpenLLMetry: <code>TRACELOOP_TRACE_CONTENT=true</code> (its default)</li>
        <li>Vercel AI SDK: <code>recordInputs</code> and <code>recordOutputs</code> in its telemetry settings (true by default)</li>
        <li>OpenInference: <code>hideInputs</code> and <code>hideOutputs</code> off in its <code>traceConfig</code></li>
      </ul>
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
