import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorText, get, query, upload } from '../api';
import { canWrite, useSession } from '../session';
import { ErrorNote, useAction } from '../ui';

/** GET /v1/imports/{id} (src/imports/imports.schemas.ts ImportView), the part the panel shows. */
interface ImportView {
  id: string;
  status: 'running' | 'completed' | 'failed';
  total: number;
  created: number;
  updated: number;
  skipped: number;
  rejected: number;
  error: string | null;
}

const POLL_MS = 1000;

/**
 * "Import CSV" on the Leads page: uploads the file as the body of POST
 * /v1/imports (the server streams it to disk), then follows the import until
 * it stops running. Hidden from viewers: the server needs leads:write anyway.
 */
export function ImportPanel({ onFinished }: { onFinished: () => void }) {
  const { user } = useSession();
  const [file, setFile] = useState<File | null>(null);
  const [onDuplicate, setOnDuplicate] = useState<'update' | 'skip'>('update');
  const [startConversations, setStartConversations] = useState(false);
  const [job, setJob] = useState<ImportView | null>(null);
  const [pollError, setPollError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const action = useAction();
  const running = job?.status === 'running';

  // One request a second while it runs; each answer schedules the next, so a slow server is never asked twice at once.
  useEffect(() => {
    if (!job || job.status !== 'running') return;
    const t = window.setTimeout(() => {
      get<ImportView>(`/v1/imports/${encodeURIComponent(job.id)}`).then(
        (next) => {
          setPollError(null);
          setJob(next);
          if (next.status !== 'running') onFinished();
        },
        (e: unknown) => {
          setPollError(errorText(e));
          // A lost connection or a busy server: ask again. A 4xx (the import is gone, the session ended) will not change.
          if (!(e instanceof ApiError && e.status < 500)) setRetry((n) => n + 1);
        },
      );
    }, POLL_MS);
    return () => window.clearTimeout(t);
    // Polls while this job runs; a new job or a retry starts it over.
  }, [job, retry]);

  if (!canWrite(user.role)) return null;

  const submit = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setJob(null);
    setPollError(null);
    void action.run(async () => {
      const path = `/v1/imports${query({ onDuplicate, startConversations: startConversations || undefined })}`;
      const started = await upload<ImportView>(path, file, 'text/csv');
      setJob(started);
      if (started.status !== 'running') onFinished();
    });
  };

  return (
    <section class="card import" aria-labelledby="import-title">
      <h2 id="import-title">Import CSV</h2>
      <form class="import-form" onSubmit={submit}>
        <div class="field">
          <label for="import-file">CSV file</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </div>
        <div class="field">
          <label for="import-duplicate">On duplicate</label>
          <select
            id="import-duplicate"
            value={onDuplicate}
            onChange={(e) => setOnDuplicate(e.currentTarget.value as 'update' | 'skip')}
          >
            <option value="update">Update the lead</option>
            <option value="skip">Skip the row</option>
          </select>
        </div>
        <div class="field check">
          <input
            id="import-start"
            type="checkbox"
            checked={startConversations}
            onChange={(e) => setStartConversations(e.currentTarget.checked)}
          />
          <label for="import-start">Start conversations</label>
        </div>
        <button type="submit" disabled={!file || action.busy || running}>
          {action.busy ? 'Uploading…' : 'Import'}
        </button>
      </form>
      <p class="muted small">
        Columns such as First Name, Last Name, Phone, Email; see the import guide for the rest. Nobody is messaged
        unless “Start conversations” is ticked.
      </p>
      <ErrorNote error={action.error ?? pollError} />
      <div class="import-progress" role="status" aria-live="polite">
        {job && <ImportCounts job={job} />}
      </div>
    </section>
  );
}

function ImportCounts({ job }: { job: ImportView }) {
  const counts: [string, number][] = [
    ['Rows done', job.total],
    ['Created', job.created],
    ['Updated', job.updated],
    ['Skipped', job.skipped],
    ['Rejected', job.rejected],
  ];
  return (
    <>
      <p class="import-state">
        {job.status === 'running' && 'Importing…'}
        {job.status === 'completed' &&
          `Import completed: ${job.total} ${job.total === 1 ? 'row' : 'rows'}, ${job.created} created, ${job.updated} updated, ${job.skipped} skipped, ${job.rejected} rejected.`}
        {job.status === 'failed' &&
          `Import failed: ${job.error ?? 'unknown error'}. The batches before the error are saved; importing the file again is safe.`}
      </p>
      <dl class="import-counts" data-status={job.status}>
        {counts.map(([label, n]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{n}</dd>
          </div>
        ))}
      </dl>
      {job.status !== 'running' && job.rejected > 0 && (
        <p>
          <a href={`/v1/imports/${encodeURIComponent(job.id)}/rejects`} download={`rejected-rows-${job.id}.csv`}>
            Download the {job.rejected === 1 ? 'rejected row' : `${job.rejected} rejected rows`} (CSV with a reason
            column)
          </a>
        </p>
      )}
    </>
  );
}
