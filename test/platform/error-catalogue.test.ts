import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, type ErrorCode, errorMessage, GENERIC_ERRORS } from '../../src/platform/error-catalogue.js';
import { DomainError, NotFound } from '../../src/platform/errors.js';
import { describeEachDialect } from '../support/harness.js';

/**
 * The codes only routes outside the OpenAPI document answer: the console's
 * session API (the console's own) and Twilio's webhooks (Twilio's, not a client's).
 */
const OUTSIDE_DOCUMENT: ErrorCode[] = [
  'admin_only',
  'conflict',
  'csrf',
  'invalid_login',
  'scope_cli_only',
  'unauthorized',
  'not_configured',
  'unknown_number',
];

describe('the error catalogue', () => {
  it('makes a DomainError from a code: the status and the text come from the catalogue', () => {
    const err = new DomainError('duplicate_phone', { phone: '+14155550100' });
    expect(err.status).toBe(409);
    expect(err.code).toBe('duplicate_phone');
    expect(err.message).toBe('A lead with phone +14155550100 already exists');
    expect(new NotFound('Lead', 'id', 'x').message).toBe('Resource not found: Lead with id x');
    expect(new DomainError('not_found').message).toBe('Not Found');
  });

  it('names every code in lower snake case, with a client-error status and a sentence saying when', () => {
    for (const [code, entry] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(500);
      expect(entry.when.length, code).toBeGreaterThan(10);
    }
  });

  it('refuses, at the typecheck, a code that is not in the catalogue or a template without its values', () => {
    const made = () => {
      // @ts-expect-error: 'lead_gone' is no code of the catalogue (npm run typecheck fails without this line's directive).
      new DomainError('lead_gone');
      // @ts-expect-error: duplicate_phone's template needs the phone.
      new DomainError('duplicate_phone');
      // @ts-expect-error: a fixed text takes no values.
      new DomainError('forbidden', { detail: 'why' });
      // @ts-expect-error: the status is the catalogue's, not the throw site's.
      new DomainError(404, 'Lead not found', 'not_found');
    };
    expect(made).toBeTypeOf('function');
    const code: ErrorCode = 'invalid_cursor';
    expect(errorMessage(code)).toBe('nextToken is not a valid cursor');
  });
});

type Operation = { 'x-error-codes'?: string[]; responses?: Record<string, { description?: string }> };

/** The text of a template: its values show as <name>; one with a plain form shows both. */
function rendered(message: string | ((p?: unknown) => string)): string {
  if (typeof message === 'string') return `\`${message}\``;
  const named = `\`${message(new Proxy({}, { get: (_t, key) => `<${String(key)}>` }))}\``;
  try {
    return `\`${message(undefined)}\`, or ${named}`;
  } catch {
    return named;
  }
}

/** The table of docs/api.md, rendered from the catalogue. */
function catalogueTable(): string {
  const rows = (Object.keys(ERRORS) as ErrorCode[]).map((code) => {
    const { status, when, message } = ERRORS[code];
    return `| \`${code}\` | ${status} | ${when} | ${rendered(message as string | ((p?: unknown) => string)).replace(/\|/g, '\\|')} |`;
  });
  return ['| code | status | when | message |', '|---|---|---|---|', ...rows].join('\n');
}

describe('docs/api.md', () => {
  it('has the table of every code, as the catalogue renders it', () => {
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const table = catalogueTable();
    const current = join(tmpdir(), 'parley-error-table.md');
    if (!doc.includes(table)) writeFileSync(current, `${table}\n`);
    expect(doc.includes(table), `docs/api.md lacks the current table: ${current} has it`).toBe(true);
  });
});

describeEachDialect('the OpenAPI document lists the codes of each operation', (ctx) => {
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    paths = ((await ctx().raw('/v1/openapi.json')).body as { paths: typeof paths }).paths;
  });

  it('gives each operation its codes, each under a response of its status that names it', () => {
    const listed = new Set<string>();
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const name = `${method} ${path}`;
        const codes = op['x-error-codes'] ?? [];
        expect(codes, name).toEqual(expect.arrayContaining([...GENERIC_ERRORS]));
        for (const code of codes) {
          listed.add(code);
          const entry = ERRORS[code as ErrorCode];
          expect(entry, `${name}: ${code} is no code of the catalogue`).toBeDefined();
          const response = op.responses?.[String(entry.status)];
          expect(response?.description ?? '', `${name} ${entry.status}`).toMatch(new RegExp(`\\b${code}\\b`));
        }
        if (path.includes('{')) expect(codes, name).toContain('uri_too_long');
        if (method === 'post') expect(codes, name).toContain('idempotency_key_reused');
      }
    }
    // A code no documented operation lists is answered only outside the document, or by nobody (dead).
    const unlisted = (Object.keys(ERRORS) as ErrorCode[]).filter((c) => !listed.has(c));
    expect(unlisted.sort()).toEqual([...OUTSIDE_DOCUMENT].sort());
  });
});
