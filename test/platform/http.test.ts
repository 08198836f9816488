import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { expectError } from '../support/assert.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';

const polluted = () => ({}) as Record<string, unknown>;

describeEachDialect('HTTP edges', (ctx) => {
  describe('routing', () => {
    it('answers 404 {"message":"Not Found"} for an unknown path, a path outside /v1, and an unknown method', async () => {
      const ts = ctx();
      expectError(await ts.acme.get('/nope'), 404, 'Not Found');
      expectError(await ts.raw('/leads', { headers: { 'x-api-key': ts.acme.key } }), 404, 'Not Found');
      expectError(await ts.raw('/v2/leads', { headers: { 'x-api-key': ts.acme.key } }), 404, 'Not Found');
      expectError(await ts.raw('/'), 404, 'Not Found');
      expectError(await ts.acme.call('PUT', '/leads'), 404, 'Not Found');
    });

    it('serves /healthz and /readyz without a key', async () => {
      const ts = ctx();
      const health = await ts.raw('/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });
      const ready = await ts.raw('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready' });
    });
  });

  describe('bodies', () => {
    it('refuses a body over 1 MiB with 413 {message}', async () => {
      const { acme } = ctx();
      const big = JSON.stringify({
        firstName: 'A',
        phone: uniquePhone(),
        additionalInfo: { blob: 'x'.repeat(1024 * 1024) },
      });
      expectError(
        await acme.call('POST', '/leads/create', big, { 'content-type': 'application/json' }),
        413,
        'Payload Too Large',
      );
    });

    it('accepts a body just under 1 MiB', async () => {
      const { acme } = ctx();
      const body = JSON.stringify({
        firstName: 'A',
        phone: uniquePhone(),
        additionalInfo: { blob: 'x'.repeat(1000 * 1000) },
      });
      expect((await acme.call('POST', '/leads/create', body, { 'content-type': 'application/json' })).status).toBe(200);
    });

    it.each([
      ['text/plain', 'firstName=A'],
      ['application/x-www-form-urlencoded', 'firstName=A&phone=%2B14155550100'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="firstName"\r\n\r\nA\r\n--x--'],
      ['application/xml', '<lead/>'],
    ])('refuses a %s body with 415 {message}', async (type, body) => {
      const { acme } = ctx();
      expectError(
        await acme.call('POST', '/leads/create', body, { 'content-type': type }),
        415,
        'Unsupported Media Type: send Content-Type: application/json',
      );
    });

    it('accepts application/json with a charset', async () => {
      const { acme } = ctx();
      const res = await acme.call('POST', '/leads/create', JSON.stringify({ firstName: 'A', phone: uniquePhone() }), {
        'content-type': 'application/json; charset=utf-8',
      });
      expect(res.status).toBe(200);
    });

    it.each([
      ['truncated JSON', '{"firstName": "A",'],
      ['single quotes', "{'firstName': 'A'}"],
      ['trailing garbage', '{"firstName":"A","phone":"+14155550100"} x'],
    ])('answers malformed JSON (%s) on create with 400 {message}', async (_name, body) => {
      const { acme } = ctx();
      expectError(
        await acme.call('POST', '/leads/create', body, { 'content-type': 'application/json' }),
        400,
        'Body is not valid JSON',
      );
    });

    it.each([
      ['a non-object body', '["A"]', 'body must be a JSON object'],
      ['null', 'null', 'body must be a JSON object'],
      ['a bare string', '"A"', 'body must be a JSON object'],
    ])('answers %s on create with 400 {message}', async (_name, body, message) => {
      const { acme } = ctx();
      expectError(await acme.call('POST', '/leads/create', body, { 'content-type': 'application/json' }), 400, message);
    });

    it.each([
      ['at the top level', `{"firstName":"A","phone":"${uniquePhone()}","__proto__":{"polluted":"yes"}}`],
      [
        'inside additionalInfo',
        `{"firstName":"A","phone":"${uniquePhone()}","additionalInfo":{"__proto__":{"polluted":"yes"}}}`,
      ],
      [
        'as constructor.prototype',
        `{"firstName":"A","phone":"${uniquePhone()}","additionalInfo":{"constructor":{"prototype":{"polluted":"yes"}}}}`,
      ],
    ])('refuses __proto__ %s with 400 and leaves Object.prototype alone', async (_name, body) => {
      const { acme } = ctx();
      const res = await acme.call('POST', '/leads/create', body, { 'content-type': 'application/json' });
      expectError(res, 400, 'Body is not valid JSON');
      expect(polluted().polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    });

    it('refuses __proto__ in a PATCH of additionalInfo too', async () => {
      const { acme } = ctx();
      const id = await createLead(acme);
      const res = await acme.call('PATCH', `/leads/${id}`, '{"additionalInfo":{"__proto__":{"isAdmin":true}}}', {
        'content-type': 'application/json',
      });
      expectError(res, 400, 'Body is not valid JSON');
      expect(polluted().isAdmin).toBeUndefined();
      expect((await acme.get(`/leads/${id}`)).body.additionalInfo).toEqual({});
    });
  });

  describe('text the databases cannot both store', () => {
    it.each([
      [
        'a body field',
        'POST',
        '/leads/create',
        { firstName: 'a\u0000b', phone: '+14155550150' },
        'firstName must not contain the NUL character',
      ],
      [
        'a nested additionalInfo value',
        'POST',
        '/leads/create',
        { firstName: 'A', phone: '+14155550151', additionalInfo: { note: ['x\u0000'] } },
        'additionalInfo.note.0 must not contain the NUL character',
      ],
      [
        'an externalLeadId',
        'POST',
        '/leads/create',
        { firstName: 'A', phone: '+14155550152', externalLeadId: '\u0000' },
        'externalLeadId must not contain the NUL character',
      ],
      ['a path parameter', 'GET', '/leads/%00', undefined, 'leadId must not contain the NUL character'],
      [
        'a settings field',
        'PATCH',
        '/settings',
        { helpText: 'Reply\u0000' },
        'helpText must not contain the NUL character',
      ],
    ])(
      'refuses U+0000 in %s with a 400 naming it, on both dialects alike',
      async (_name, method, path, body, message) => {
        const { acme } = ctx();
        expectError(await acme.call(method, path, body), 400, message);
      },
    );

    it('refuses U+0000 in a PATCH and a tag id without touching the lead', async () => {
      const { acme } = ctx();
      const id = await createLead(acme);
      expectError(
        await acme.patch(`/leads/${id}`, { summary: 'x\u0000' }),
        400,
        'summary must not contain the NUL character',
      );
      expectError(
        await acme.post(`/leads/${id}/tags/remove`, { tagIds: ['\u0000'] }),
        400,
        'tagIds.0 must not contain the NUL character',
      );
      expect((await acme.get(`/leads/${id}`)).body.summary).toBeNull();
    });

    it('keeps the contract text for U+0000 in an unsubscribe body', async () => {
      const { acme } = ctx();
      const id = await createLead(acme);
      expectError(
        await acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms\u0000'] }),
        400,
        'channels must include at least one of: sms, voice, email',
      );
    });
  });

  describe('URLs the router cannot take', () => {
    it('answers bad percent-encoding with 400 {message} in the contract shape, not echoing the URL', async () => {
      const ts = ctx();
      const res = await ts.acme.get('/leads/%E0%A4%A');
      expectError(res, 400, 'Bad Request: the URL is not valid');
      expect(JSON.stringify(res.body)).not.toContain('%E0');
    });

    it('answers an over-long path parameter with 414 {message}', async () => {
      const res = await ctx().acme.get(`/leads/${'a'.repeat(300)}`);
      expectError(res, 414, 'URI Too Long: a path parameter is longer than 200 characters');
    });
  });

  describe('request ids', () => {
    it('echoes nothing internal in errors and keeps a safe client request id', async () => {
      const { acme } = ctx();
      const res = await acme.call('GET', '/leads/x', undefined, { 'x-request-id': 'abc-123' });
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toMatch(/stack|select|sql/i);
    });
  });
});

describeEachDialect('internal failures', (ctx) => {
  it('answers exactly {"message":"Internal Server Error"} with no stack, SQL or driver text when a table is gone', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    await sql`drop table leads`.execute(ts.server.store.db);
    const res = await ts.acme.get(`/leads/${id}`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Internal Server Error' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const write = await ts.acme.post('/leads/create', { firstName: 'A', phone: uniquePhone() });
    expect(write.status).toBe(500);
    expect(write.body).toEqual({ message: 'Internal Server Error' });
    // Health does not depend on one table; readiness checks the connection.
    expect((await ts.raw('/readyz')).status).toBe(200);
  });

  it('answers 503 on /readyz and 500 on the API once the store is closed', async () => {
    const ts = ctx();
    await ts.server.store.close();
    const ready = await ts.raw('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ message: 'Database unavailable' });
    expect((await ts.raw('/healthz')).status).toBe(200);
    const res = await ts.acme.get('/leads');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Internal Server Error' });
  });
});
