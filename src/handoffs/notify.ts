import { emitEvents } from '../events/outbox.repository.js';
import { notificationEvent } from '../events/payloads.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { findProfileByName } from '../profile-records/profiles.repository.js';
import type { ChannelName } from '../lead-records/channels.js';

/**
 * The agent's `notify`: one of the lead's profile's plain-English conditions
 * holds. The documented `notification` webhook goes out under the
 * condition's name (as the profile spells it) and the lead's owner (or, with
 * none, the admins) is alerted by email and SMS. A name the profile does not
 * list is not the organization's notification: it is dropped and logged.
 */
export async function notifyTeam(
  trx: Db,
  deps: Deps,
  t: { organizationId: string; lead: LeadRow; channel: ChannelName; now: Date },
  action: { name: string; message?: string },
): Promise<void> {
  const profile = await findProfileByName(trx, t.organizationId, t.lead.customer_profile);
  const listed = profile?.notifications
    ? (JSON.parse(profile.notifications) as { name: string; condition: string }[])
    : [];
  const match = listed.find((n) => n.name.trim().toLowerCase() === action.name.trim().toLowerCase());
  if (!match) {
    deps.log.warn(
      { leadId: t.lead.id, name: action.name.slice(0, 100) },
      'the agent notified a name its profile does not list: ignored',
    );
    return;
  }
  const message = action.message?.trim() || match.condition;
  await alertTeam(trx, t, { name: match.name, event: message, alert: message });
}

/**
 * The documented `notification` webhook with `event` as its message, and the
 * lead's owner (or, with none, the admins) alerted by email and SMS with
 * `alert` (owner.alert): how any notice about a lead reaches a person.
 */
export async function alertTeam(
  trx: Db,
  t: { organizationId: string; lead: LeadRow; channel: ChannelName; now: Date },
  notice: { name: string; event: string; alert: string },
): Promise<void> {
  const at = t.now.toISOString();
  await emitEvents(trx, t.organizationId, at, [notificationEvent(t.lead, t.channel, notice.name, notice.event)]);
  const payload = { leadId: t.lead.id, name: notice.name, message: notice.alert };
  await enqueueJob(trx, t.organizationId, 'owner.alert', payload, t.now, at);
}
