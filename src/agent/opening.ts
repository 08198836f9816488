import { opensByCall, queueOpeningCall } from '../call-records/waiting-calls.js';
import type { AgentOpeningPayload, JobOutcome } from '../jobs/names.js';
import { findLead } from '../lead-records/leads.repository.js';
import { scheduleSend } from '../messages/send.service.js';
import { defaultChannel } from '../lead-records/channels.js';
import type { Deps } from '../platform/deps.js';
import { findOpening, finishOpening } from '../profiles/openings.repository.js';
import { loadAgentInput } from './context.js';
import { checkActions, InvalidAgentAnswer } from './provider.js';
import { agentFor } from './registry.js';

const SWITCHED_AWAY = 'the lead was switched to another customer profile before its opening was written';

/**
 * The 'ai.opening' job: the agent writes the opening message of a profile that
 * has no template, from the profile's instructions and the lead's context
 * (agent/prompt.ts, task `opening`). The model is asked outside any
 * transaction; its `reply` is then recorded as an AI-generated message and
 * scheduled for the time the switch asked (now or after its delay), in one
 * transaction under the lead's lock, so the compliance gate judges it at send
 * time like every send. Any other action the agent answers is not applied: an
 * opening only speaks. A failure throws (the job is retried on the configured
 * schedule); on the last attempt the opening is recorded as failed with the
 * reason, which the lead's timeline shows. Runs once: an opening no longer
 * being composed is left alone.
 */
export async function runOpening(
  deps: Deps,
  organizationId: string,
  p: AgentOpeningPayload,
  lastAttempt: boolean,
): Promise<JobOutcome> {
  const done: JobOutcome = { kind: 'done' };
  const opening = await findOpening(deps.db, organizationId, p.openingId);
  if (opening?.status !== 'composing') return done;
  const at = () => deps.clock.now().toISOString();
  try {
    const lead = await findLead(deps.db, organizationId, opening.lead_id);
    if (!lead) return done; // erased meanwhile
    if (lead.customer_profile !== opening.profile) {
      await finishOpening(deps.db, organizationId, opening.id, { status: 'skipped', error: SWITCHED_AWAY, at: at() });
      return done;
    }
    const { input } = await loadAgentInput(deps.db, organizationId, lead, deps.clock.now(), 'opening');
    const actions = checkActions(await agentFor(deps.config).decide(input));
    const text = actions.find((a) => a.type === 'reply')?.text;
    if (!text) throw new InvalidAgentAnswer('the agent wrote no opening message (it did not call reply)');
    await deps.db.transaction().execute(async (trx) => {
      const locked = await findLead(trx, organizationId, opening.lead_id, true);
      if (!locked) return;
      const current = await findOpening(trx, organizationId, opening.id);
      if (current?.status !== 'composing') return;
      const now = deps.clock.now();
      if (locked.customer_profile !== opening.profile) {
        await finishOpening(trx, organizationId, opening.id, {
          status: 'skipped',
          error: SWITCHED_AWAY,
          at: now.toISOString(),
        });
        return;
      }
      const sendAt = new Date(Math.max(new Date(opening.send_at).getTime(), now.getTime()));
      // A profile that calls first (call-records/waiting-calls.ts): the opening is the live call's greeting.
      const messageId = (await opensByCall(trx, organizationId, locked))
        ? await queueOpeningCall(trx, {
            organizationId,
            lead: locked,
            text,
            runAt: sendAt,
            now,
            campaignId: opening.campaign_id,
          })
        : await scheduleSend(trx, {
            organizationId,
            lead: locked,
            channel: defaultChannel(locked),
            text,
            runAt: sendAt,
            sendWhenOff: false,
            isAiGenerated: true,
            now: now.toISOString(),
            campaignId: opening.campaign_id,
          });
      await finishOpening(trx, organizationId, opening.id, { status: 'scheduled', messageId, at: now.toISOString() });
    });
    return done;
  } catch (err) {
    if (lastAttempt) {
      const error = `the agent could not write the opening message: ${err instanceof Error ? err.message : String(err)}`;
      await finishOpening(deps.db, organizationId, opening.id, { status: 'failed', error, at: at() }).catch(
        (e: unknown) => deps.log.error({ err: e, leadId: p.leadId }, 'could not record the failed opening'),
      );
    }
    throw err;
  }
}
