import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorText } from './api.js';
import { UserText, visibleText } from './user-text';

/** Loads data on mount and whenever `deps` change; `reload` fetches again (after a change or a live event). */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(null)),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
    // The caller's deps say when to load again (the loader is a new closure every render); tick is reload().
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload };
}

/** Runs an action, keeps its error and a busy flag for the button that started it. */
export function useAction(): {
  busy: boolean;
  error: string | null;
  run: (fn: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}

export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/**
 * Where a load stands until its data is there: its error, or a loading line.
 * `error` is an action's error shown in the same place (it goes first).
 */
export function LoadStatus({
  load,
  what,
  error,
}: {
  load: { data: unknown; error: string | null };
  what: string;
  error?: string | null;
}) {
  return (
    <>
      <ErrorNote error={error ?? load.error} />
      {!load.data && !load.error && (
        <p class="muted" aria-live="polite">
          Loading {what}…
        </p>
      )}
    </>
  );
}

/** A table in its scrolling wrapper: the caption (for screen readers only unless `showCaption`), one header row, the rows; `below` sits under the table. */
export function Table({
  caption,
  showCaption,
  columns,
  children,
  below,
}: {
  caption: ComponentChildren;
  showCaption?: boolean;
  columns: string[];
  children: ComponentChildren;
  below?: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption class={showCaption ? undefined : 'sr-only'}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {below}
    </div>
  );
}

export function Page({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${visibleText(title)} · Parley console`;
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title">
          <UserText text={title} />
        </h1>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** A one-time secret (API key, password): shown once, selectable, with a plain warning. */
export function OneTimeSecret({ label, value }: { label: string; value: string }) {
  return (
    <div class="secret" role="status">
      <p>
        <strong>{label}</strong> — shown only this once; copy it now.
      </p>
      <code class="secret-value">{value}</code>
    </div>
  );
}
