import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFollowUp } from '../../src/agent/followup.job.js';
import { claimJobs } from '../../src/jobs/jobs.repository.js';
import type { ClaimedJob, FollowUpPayload } from '../../src/jobs/names.js';
import { ALWAYS_OPEN } from '../agent/helpers.js';
import { createLead, dialects, startTestServer, type TestServer } from '../support/harness.js';

/**
 * The follow-up job is fenced twice: by its lease (a worker whose lease lapsed
 * and whose job another worker claimed again writes nothing) and by the
 * cadence's generation (a job made before a reset, or run again after it did
 * its work, does nothing). Two "workers" here are two claims made through the
 * real queue code; no background worker runs.
 */

const HOUR = 3_600_000;
type FollowUpJob = ClaimedJob & { payload: FollowUpPayload };

for (const dialect of dialects()) {
  describe(`the follow-up job's fences [${dialect}]`, () => {
    let ts: TestServer;
    beforeAll(async () => {
      ts = await startTestServer(dialect, { PARLEY_WORKER: 'false' });
      expect((await ts.acme.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
      expect((await ts.acme.post('/customerProfiles', { name: 'fenced', questions: ['Shall we talk?'] })).status).toBe(
        201,
      );
    });
    afterAll(async () => ts?.close());

    const followUpMessages = (leadId: string) =>
      ts.server.store.db
        .selectFrom('messages')
        .select(['id', 'follow_up_step', 'status'])
        .where('lead_id', '=', leadId)
        .where('is_follow_up', '=', 1)
        .execute();

    async function claimFor(leadId: string): Promise<FollowUpJob[]> {
      const claimed = await claimJobs(ts.server.deps, 50);
      return claimed.filter(
        (j): j is FollowUpJob => j.name === 'followup.send' && (j.payload as FollowUpPayload).leadId === leadId,
      );
    }

    it('a lapsed claim writes nothing; the holder writes the step once; running it again writes nothing more', async () => {
      const { deps } = ts.server;
      const leadId = await createLead(ts.acme, { customerProfile: 'fenced' });
      await ts.acme.patch(`/leads/${leadId}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      ts.clock.advance(HOUR + 60_000);

      const [first] = await claimFor(leadId);
      expect(first).toBeDefined();
      // The first worker stalls past its lease; a second claims the job.
      await deps.db
        .updateTable('jobs')
        .set({ lease_until: new Date(deps.clock.now().getTime() - 1000).toISOString() })
        .where('id', '=', first!.id)
        .execute();
      const [second] = await claimFor(leadId);
      expect(second!.id).toBe(first!.id);
      expect(second!.leaseToken).not.toBe(first!.leaseToken);

      expect(await runFollowUp(deps, first!, false)).toEqual({ kind: 'done' });
      expect(await followUpMessages(leadId)).toEqual([]);
      expect((await ts.acme.get(`/leads/${leadId}`)).body.nextFollowUpAt).not.toBeNull();

      await runFollowUp(deps, second!, false);
      const written = await followUpMessages(leadId);
      expect(written).toEqual([{ id: expect.any(String), follow_up_step: 1, status: 'scheduled' }]);
      expect((await ts.acme.get(`/leads/${leadId}`)).body).toMatchObject({ followUpStep: 1, nextFollowUpAt: null });

      // At-least-once: the same claim runs again (a crash before it was marked done).
      await runFollowUp(deps, second!, false);
      expect(await followUpMessages(leadId)).toHaveLength(1);
    });

    it("a job claimed before a reset does nothing, though it holds its lease; the reset's own job fires", async () => {
      const { deps } = ts.server;
      const leadId = await createLead(ts.acme, { customerProfile: 'fenced' });
      await ts.acme.patch(`/leads/${leadId}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      ts.clock.advance(HOUR + 60_000);
      const [claimed] = await claimFor(leadId);
      expect(claimed).toBeDefined();
      // The organization resets the step while the worker holds the job.
      expect((await ts.acme.patch(`/leads/${leadId}`, { followUpStep: 1 })).status).toBe(200);
      await runFollowUp(deps, claimed!, false);
      expect(await followUpMessages(leadId)).toEqual([]);

      ts.clock.advance(HOUR + 60_000);
      // The old job's lease has lapsed too, so it is claimed again beside the reset's: the reset's is the newer generation.
      const fresh = (await claimFor(leadId)).find((j) => j.payload.generation > claimed!.payload.generation);
      expect(fresh).toBeDefined();
      await runFollowUp(deps, fresh!, false);
      expect(await followUpMessages(leadId)).toHaveLength(1);
    });

    it('a job that comes early waits for the due time instead of firing', async () => {
      const { deps } = ts.server;
      const leadId = await createLead(ts.acme, { customerProfile: 'fenced' });
      await ts.acme.patch(`/leads/${leadId}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      const due = (await ts.acme.get(`/leads/${leadId}`)).body.nextFollowUpAt as string;
      // Claimed early (e.g. a clock skew between workers): the job is moved to the due time, nothing is written.
      await deps.db
        .updateTable('jobs')
        .set({ run_at: new Date(deps.clock.now().getTime() - 1000).toISOString() })
        .where('name', '=', 'followup.send')
        .where('payload', 'like', `%${leadId}%`)
        .execute();
      const [early] = await claimFor(leadId);
      expect(await runFollowUp(deps, early!, false)).toEqual({
        kind: 'defer',
        until: new Date(due),
        reason: 'follow-up step not due yet',
      });
      expect(await followUpMessages(leadId)).toEqual([]);
    });
  });
}
