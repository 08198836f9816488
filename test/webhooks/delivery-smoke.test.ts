import { afterAll, beforeAll, expect, it } from 'vitest';
import { insertEndpoint } from '../../src/webhooks/endpoints.repository.js';
import { generateSecret } from '../../src/webhooks/signing.js';
import { createLead, describeEachDialect } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';

const FAST = { PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true', PARLEY_WORKER_POLL_MS: '20', PARLEY_WEBHOOK_RETRY_SCHEDULE: '0,50ms,50ms,100ms' };

describeEachDialect('webhook delivery (worker)', (ctx) => {
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  it('delivers a signed optOut per changed channel', async () => {
    const ts = ctx();
    receiver.secret = generateSecret();
    const orgId = (await ts.server.store.db.selectFrom('organizations').select('id').where('name', '=', 'acme').executeTakeFirstOrThrow()).id;
    const now = new Date().toISOString();
    await insertEndpoint(ts.server.store.db, orgId, {
      id: '01900000-0000-7000-8000-000000000001', url: receiver.url, description: null, events: null, secret: receiver.secret,
      enabled: 1, disabled_reason: null, created_at: now, updated_at: now,
    });
    const id = await createLead(ts.acme);
    await ts.acme.post(`/leads/${id}/unsubscribe`, {});
    await receiver.until(() => receiver.acknowledged.filter((r) => r.json.data.leadId === id).length === 2);
    const mine = receiver.received.filter((r) => r.json.data.leadId === id);
    expect(mine.map((r) => r.json.data.channel)).toEqual(['sms', 'voice']);
    expect(mine.every((r) => r.standardSignatureValid && r.legacySignatureValid)).toBe(true);
    expect(mine[0]!.json.event).toBe('optOut');
  });
}, FAST);
