import { expect } from 'vitest';
import type { ApiResponse } from './harness.js';

/**
 * An error answer as decisions.md fixes it: the status, exactly this `message`,
 * and nothing but `message` (plus the optional machine-readable `code`).
 */
export function expectError(res: ApiResponse, status: number, message: string | RegExp): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { message } });
  expect(typeof res.body).toBe('object');
  expect(Object.keys(res.body).filter((k) => k !== 'message' && k !== 'code')).toEqual([]);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
