import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRecordedMessage } from '../../src/channels/outbound.js';
import { claimJobs, finishJob, holdsLease } from '../../src/jobs/jobs.repository.js';
import type { ClaimedJob } from '../../src/jobs/names.js';
import { findLead } from '../../src/lead-records/leads.repository.js';
import { findMessage } from '../../src/messages/messages.repository.js';
import { scheduleSend } from '../../src/messages/send.service.js';
import { createLead, dialects, startTestServer, type TestServer } from '../support/harness.js';

/**
 * Leases are fenced: a worker whose lease lapsed and whose job another worker
 * claimed again can neither send nor complete it. The "workers" here are two
 * claims made through the real queue code against the real database.
 */
for (const dialect of dialects()) {
  describe(`job leases are fenced [${dialect}]`, () => {
    let ts: TestServer;
    beforeAll(async () => {
      ts = await startTestServer(dialect, { PARLEY_WORKER: 'false' });
    });
    afterAll(async () => ts?.close());

    it('a lapsed claim cannot send or complete the job a second claim now holds; the holder can', async () => {
      const { deps } = ts.server;
      const db = deps.db;
      ts.clock.set('2026-06-10T19:00:00Z'); // noon in Los Angeles, inside the default 08:00-21:00
      const leadId = await createLead(ts.acme);
      const org = (
        await db.selectFrom('leads').select('organization_id').where('id', '=', leadId).executeTakeFirstOrThrow()
      ).organization_id;
      const lead = (await findLead(db, org, leadId))!;
      const now = deps.clock.now();
      const messageId = await scheduleSend(db, {
        organizationId: org,
        lead,
        channel: 'sms',
        text: 'fenced',
        runAt: now,
        sendWhenOff: true,
        isAiGenerated: false,
        now: now.toISOString(),
      });

      const [first] = (await claimJobs(deps, 10)).filter(
        (j) => (j.payload as { messageId: string }).messageId === messageId,
      ) as ClaimedJob[];
      expect(first).toBeDefined();
      expect(await holdsLease(db, first!, deps.clock.now().toISOString())).toBe(true);
      // The first worker stalls past its lease; a second claims the job.
      await db
        .updateTable('jobs')
        .set({ lease_until: new Date(now.getTime() - 1000).toISOString() })
        .where('id', '=', first!.id)
        .execute();
      const [second] = (await claimJobs(deps, 10)).filter((j) => j.id === first!.id);
      expect(second?.leaseToken).toBeDefined();
      expect(second!.leaseToken).not.toBe(first!.leaseToken);

      expect(await holdsLease(db, first!, deps.clock.now().toISOString())).toBe(false);
      await sendRecordedMessage(deps, { ...first!, payload: { messageId, sendWhenOff: true } }, false);
      expect((await findMessage(db, org, messageId))!.status).toBe('scheduled');
      await finishJob(db, first!, deps.clock.now().toISOString());
      expect(
        (await db.selectFrom('jobs').select('status').where('id', '=', first!.id).executeTakeFirstOrThrow()).status,
      ).toBe('pending');

      await sendRecordedMessage(deps, { ...second!, payload: { messageId, sendWhenOff: true } }, false);
      expect((await findMessage(db, org, messageId))!.status).toBe('sent');
      await finishJob(db, second!, deps.clock.now().toISOString());
      expect(
        (await db.selectFrom('jobs').select('status').where('id', '=', first!.id).executeTakeFirstOrThrow()).status,
      ).toBe('done');
    });
  });
}
