import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';

/**
 * JSON can carry what no database keeps as sent: a lone surrogate (`"\ud800"`:
 * three U+FFFD on SQLite, one on PostgreSQL), bytes that are not UTF-8
 * (silently turned into U+FFFD), and numbers out of the float range (`1e400`
 * parses as Infinity and is stored as null). Every JSON body refuses them with
 * a 400 naming the field, identically on both dialects, and nothing is stored.
 */

const SURROGATE = 'is not valid Unicode text: it holds a lone surrogate (an escape such as \\ud800 without its pair)';

describeEachDialect('JSON text both dialects store alike, or a 400', (ctx) => {
  const refusedCreate = async (body: string | Uint8Array, phone: string, message: string) => {
    const { acme } = ctx();
    expectError(await acme.call('POST', '/leads/create', body, { 'content-type': 'application/json' }), 400, message);
    expect((await acme.get(`/leads/lookup?phone=${encodeURIComponent(phone)}`)).status).toBe(404);
  };

  it.each([
    [
      'a lone high surrogate in a field',
      (p: string) => `{"firstName":"A\\ud800","phone":"${p}"}`,
      `firstName ${SURROGATE}`,
    ],
    [
      'a lone low surrogate deep in additionalInfo',
      (p: string) => `{"firstName":"A","phone":"${p}","additionalInfo":{"notes":["ok","x\\udc00y"]}}`,
      `additionalInfo.notes.1 ${SURROGATE}`,
    ],
    ['a reversed pair', (p: string) => `{"firstName":"\\ude00\\ud83d","phone":"${p}"}`, `firstName ${SURROGATE}`],
    [
      'a lone surrogate in a key',
      (p: string) => `{"firstName":"A","phone":"${p}","additionalInfo":{"k\\ud800":1}}`,
      `additionalInfo has a key that is not valid Unicode text: it holds a lone surrogate (an escape such as \\ud800 without its pair)`,
    ],
    [
      '1e400',
      (p: string) => `{"firstName":"A","phone":"${p}","additionalInfo":{"score":1e400}}`,
      'additionalInfo.score is a number too large to represent (at most about 1.8e308)',
    ],
    [
      '-1e400',
      (p: string) => `{"firstName":"A","phone":"${p}","additionalInfo":{"score":[-1e400]}}`,
      'additionalInfo.score.0 is a number too large to represent (at most about 1.8e308)',
    ],
  ])('refuses %s on create, and stores nothing', async (_name, body, message) => {
    const phone = uniquePhone();
    await refusedCreate(body(phone), phone, message);
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['0xff', [0xff]],
    ['a truncated 3-byte sequence', [0xe2, 0x82]],
    ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
  ])('refuses bytes that are not UTF-8 (%s) instead of storing U+FFFD, and stores nothing', async (_name, bytes) => {
    const phone = uniquePhone();
    const body = Buffer.concat([
      Buffer.from(`{"firstName":"A`),
      Buffer.from(bytes),
      Buffer.from(`","phone":"${phone}"}`),
    ]);
    await refusedCreate(new Uint8Array(body), phone, 'Body is not valid UTF-8 text');
  });

  it('keeps what is valid: a surrogate pair, raw UTF-8, a UTF-8 BOM and the largest finite number round-trip exactly', async () => {
    const { acme } = ctx();
    const phone = uniquePhone();
    const text = `\ufeff{"firstName":"Zoë \\ud83d\\ude00 😀","phone":"${phone}","additionalInfo":{"big":1.7976931348623157e308,"tiny":5e-324}}`;
    const res = await acme.call('POST', '/leads/create', new Uint8Array(Buffer.from(text, 'utf8')), {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(200);
    const lead = (await acme.get(`/leads/${res.body.id}`)).body;
    expect(lead.firstName).toBe('Zoë 😀 😀');
    expect(lead.additionalInfo).toMatchObject({ big: Number.MAX_VALUE, tiny: 5e-324 });
  });

  it('refuses them in a PATCH without touching the lead, and on unsubscribe with the contract text', async () => {
    const { acme } = ctx();
    const id = await createLead(acme);
    const before = (await acme.get(`/leads/${id}`)).body;
    expectError(
      await acme.call('PATCH', `/leads/${id}`, '{"summary":"\\ud800"}', { 'content-type': 'application/json' }),
      400,
      `summary ${SURROGATE}`,
    );
    expectError(
      await acme.call('PATCH', '/settings', '{"frequencyCap":{"maxAutomatedPerDay":1e400}}', {
        'content-type': 'application/json',
      }),
      400,
      'frequencyCap.maxAutomatedPerDay is a number too large to represent (at most about 1.8e308)',
    );
    expectError(
      await acme.call('POST', `/leads/${id}/unsubscribe`, '{"channels":["sms\\ud800"]}', {
        'content-type': 'application/json',
      }),
      400,
      'channels must include at least one of: sms, voice, email',
    );
    expect((await acme.get(`/leads/${id}`)).body).toEqual(before);
  });

  it('a path parameter: the limit SECURITY.md documents is the one the server applies (414 over it, with its message)', async () => {
    const documented = /Path parameters over (\d+) characters are\s+`414`/.exec(
      readFileSync(new URL('../../SECURITY.md', import.meta.url), 'utf8'),
    );
    expect(documented).not.toBeNull();
    const limit = Number(documented![1]);
    const { acme } = ctx();
    // At the limit the router takes it: an unknown lead, the ordinary 404.
    expect((await acme.get(`/leads/${'a'.repeat(limit)}`)).status).toBe(404);
    expectError(
      await acme.get(`/leads/${'a'.repeat(limit + 1)}`),
      414,
      `URI Too Long: a path parameter is longer than ${limit} characters`,
    );
    expectError(
      await acme.post(`/leads/${'a'.repeat(limit + 1)}/unsubscribe`, {}),
      414,
      `URI Too Long: a path parameter is longer than ${limit} characters`,
    );
  });
});
