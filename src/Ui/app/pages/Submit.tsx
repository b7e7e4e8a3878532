/**
 * Submit: trace files dropped here or picked become runs (`POST /v1/runs`, the body as the file
 * holds it), each file's progress shown, its runs linked as they are made.
 */
import { useState } from "preact/hooks"
import { submitFile } from "../api.js"
import { Link } from "../router.js"
import { Notice, Page } from "../ui.js"

interface Upload {
  readonly id: number
  readonly name: string
  readonly state: "sending" | "done" | "failed"
  readonly message: string
  readonly runs: ReadonlyArray<string>
}

let uploaded = 0

export const SubmitPage = () => {
  const [uploads, setUploads] = useState<ReadonlyArray<Upload>>([])
  const [over, setOver] = useState(false)
  const send = (files: ReadonlyArray<File>) => {
    for (const file of files) {
      const id = ++uploaded
      setUploads((list) => [...list, { id, name: file.name, state: "sending", message: "sending…", runs: [] }])
      void submitFile(file).then((answer) => {
        const settled: Upload = answer.ok
          ? {
            id,
            name: file.name,
            state: "done",
            message: `${answer.value.runs.length} run${answer.value.runs.length === 1 ? "" : "s"} made${
              answer.value.rejected.length === 0 ? "" : `, ${answer.value.rejected.length} trace${answer.value.rejected.length === 1 ? "" : "s"} refused`
            }`,
            runs: answer.value.runs.map((run) => run.id)
          }
          : { id, name: file.name, state: "failed", message: answer.message, runs: [] }
        setUploads((list) => list.map((upload) => (upload.id === id ? settled : upload)))
      })
    }
  }
  const picked = (event: Event) => {
    const input = event.currentTarget
    if (input instanceof HTMLInputElement && input.files !== null) send(Array.from(input.files))
  }
  const dropped = (event: DragEvent) => {
    event.preventDefault()
    setOver(false)
    if (event.dataTransfer !== null) send(Array.from(event.dataTransfer.files))
  }
  return (
    <Page title="Submit traces">
      <div
        class={over ? "dropzone over" : "dropzone"}
        onDragOver={(event) => {
          event.preventDefault()
          setOver(true)
        }}
        onDragLeave={() => setOver(false)}
        onDrop={dropped}
      >
        <p>Drop trace files here (any format the service reads: JSON, JSON Lines, a zip), or</p>
        <label class="button">
          Choose files <input type="file" multiple accept=".json,.jsonl,.ndjson,.zip,application/json" onChange={picked} class="visually-hidden" />
        </label>
      </div>
      {uploads.length === 0 ? null : (
        <ul class="uploads" aria-live="polite">
          {uploads.map((upload) => (
            <li key={upload.id} data-state={upload.state}>
              <strong>{upload.name}</strong>: {upload.message}
              {upload.runs.length === 0 ? null : (
                <ul>
                  {upload.runs.map((id) => (
                    <li key={id}>
                      <Link href={`/ui/runs/${encodeURIComponent(id)}`}>run {id}</Link>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      <Notice kind="info">Runs are diagnosed in the background; their status changes on the Runs page as they go.</Notice>
    </Page>
  )
}
