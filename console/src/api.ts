/**
 * The one door to the server. The session cookie rides along on its own
 * (same origin); every state-changing request carries the CSRF token the
 * login or session answer handed out, or the server refuses it (403).
 */

let csrfToken = '';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Called when any request answers 401: the session is gone, show the login page. */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

/** `contentType` sends `body` as it is (a file, for an upload) instead of as JSON. */
export async function request<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD') headers['x-csrf-token'] = csrfToken;
  const init: RequestInit = { method, headers, credentials: 'same-origin' };
  if (contentType !== undefined) {
    headers['content-type'] = contentType;
    init.body = body as BodyInit;
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!res.ok) {
    if (res.status === 401 && !path.endsWith('/login')) onUnauthorized();
    const message = (data as { message?: unknown } | undefined)?.message;
    throw new ApiError(res.status, typeof message === 'string' ? message : `Request failed (${res.status}).`);
  }
  return data as T;
}

export const get = <T>(path: string) => request<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {});
export const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, body);
export const put = <T>(path: string, body?: unknown) => request<T>('PUT', path, body);
export const del = <T>(path: string) => request<T>('DELETE', path);
/** POSTs a file as the raw request body (the browser streams it; nothing is read into memory here). */
export const upload = <T>(path: string, file: Blob, contentType: string) => request<T>('POST', path, file, contentType);

/** A query string from the defined, non-empty values only. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
