import { expect } from 'vitest';
import type { ApiResponse } from './harness.js';

/**
 * An error answer as docs/contract.md fixes it: the status, exactly this `message`,
 * and nothing but `message` (plus the optional machine-readable `code`).
 */
export function expectError(res: ApiResponse, status: number, message: string | RegExp): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { message } });
  expect(typeof res.body).toBe('object');
  expect(Object.keys(res.body ?? {}).filter((k) => k !== 'message' && k !== 'code')).toEqual([]);
}

/**
 * The `message` of an answer whose type is not known (a route picked at run time, `client.untyped`):
 * the error's message, or undefined when the body has none.
 */
export function messageOf(res: ApiResponse): string | undefined {
  const body = res.body;
  if (typeof body !== 'object' || body === null || !('message' in body)) return undefined;
  return typeof body.message === 'string' ? body.message : undefined;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until `ok` holds for its value, and answers that value; past `ms` it fails, naming what was awaited
 * (`what`, when given) and the last value, so a wait that never comes true is a failure rather than a test that
 * goes on with stale data. The one poll of the suites: `eventually` (webhooks.ts) is this with a truthy check.
 */
export async function until<T>(
  fn: () => Promise<T> | T,
  ok: (v: T) => boolean,
  ms = 10_000,
  { what, every = 25 }: { what?: string | (() => string); every?: number } = {},
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end)
      throw new Error(
        `until: ${what ? `${typeof what === 'function' ? what() : what}: ` : ''}not reached within ${ms} ms; last value: ${JSON.stringify(v)?.slice(0, 2000)}`,
      );
    await sleep(every);
  }
}
