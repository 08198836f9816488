import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { expectError } from '../support/assert.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';

/** Phones typed as digits alone, through create and lookup (the rule itself: test/leads/phone.property.test.ts). */
const freshOrg = (ts: TestServer): Promise<Client> =>
  ts.clientWithScopes([...SCOPES], `digits-${randomUUID().slice(0, 8)}`);
const lookup = (client: Client, phone: string) => client.get(`/leads/lookup?phone=${encodeURIComponent(phone)}`);

describeEachDialect('digits-only phones (default country US)', (ctx) => {
  describe('GET /leads/lookup', () => {
    it('finds +442079460958 from 442079460958 (a client that strips the +), where it used to answer 400', async () => {
      const client = await freshOrg(ctx());
      const id = await createLead(client, { phone: '+442079460958' });
      for (const spelling of [
        '442079460958',
        ' 442079460958 ',
        '+442079460958',
        '+44 20 7946 0958',
        '011442079460958',
      ]) {
        const res = await lookup(client, spelling);
        expect({ spelling, status: res.status, body: res.body }).toEqual({ spelling, status: 200, body: { id } });
      }
    });

    it('keeps a 10-digit US number US, and reads 11 digits starting with 1 as +1', async () => {
      const client = await freshOrg(ctx());
      const us = await createLead(client, { phone: '+14325550100' }); // its digits also spell +43 2555 0100 (Austria)
      const austria = await createLead(client, { phone: '+4325550100' });
      expect((await lookup(client, '4325550100')).body).toEqual({ id: us });
      expect((await lookup(client, '14325550100')).body).toEqual({ id: us });
      expect((await lookup(client, '+4325550100')).body).toEqual({ id: austria });
    });

    it('finds a stored number that is possible but not valid from its digits (a drama range creation accepts)', async () => {
      const client = await freshOrg(ctx());
      const id = await createLead(client, { phone: '+447700900555' });
      for (const spelling of ['447700900555', '+447700900555', '+44 7700 900555']) {
        const res = await lookup(client, spelling);
        expect({ spelling, status: res.status, body: res.body }).toEqual({ spelling, status: 200, body: { id } });
      }
      expectError(await lookup(client, '447700900556'), 404, 'Resource not found: Lead with phone +447700900556');
    });

    it('still 404s an unknown number (named in E.164) and 400s digits that are no number', async () => {
      const client = await freshOrg(ctx());
      expectError(await lookup(client, '33142685300'), 404, 'Resource not found: Lead with phone +33142685300');
      expectError(await lookup(client, '12'), 400, 'phone is not a valid phone number');
    });
  });

  describe('POST /leads/create', () => {
    it('reads the international prefix 00 as + when the rest is a valid number', async () => {
      const client = await freshOrg(ctx());
      const id = await createLead(client, { phone: '0034 612 345 678' });
      expect((await client.get(`/leads/${id}`)).body.phone).toBe('+34612345678');
      expect((await lookup(client, '0034612345678')).body).toEqual({ id });
    });

    it('stores digits without their + as that number, and the same number in any spelling is the 409 duplicate', async () => {
      const client = await freshOrg(ctx());
      const id = await createLead(client, { phone: '491711234567' });
      expect((await client.get(`/leads/${id}`)).body.phone).toBe('+491711234567');
      expectError(
        await client.post('/leads/create', { firstName: 'Dup', phone: '+49 171 1234567' }),
        409,
        'A lead with phone +491711234567 already exists',
      );
      const us = await createLead(client, { phone: '4155550163' });
      expect((await client.get(`/leads/${us}`)).body.phone).toBe('+14155550163');
    });
  });
});
