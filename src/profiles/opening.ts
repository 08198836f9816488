import { opensByCall, queueOpeningCall } from '../call-records/waiting-calls.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import { findMessage } from '../messages/messages.repository.js';
import { scheduleSend } from '../messages/send.service.js';
import { defaultChannel } from '../lead-records/channels.js';
import type { Db } from '../platform/db/schema.js';
import { Forbidden } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { insertOpening, latestOpening } from './openings.repository.js';
import type { ProfileRow } from '../profile-records/profiles.repository.js';
import { renderTemplate } from './template.js';
import { parseVariants, pickVariant } from './variants.js';
import { setOpeningVariant } from '../messages/messages.repository.js';

/** Whether the profile has a template to open with: its opening message, or A/B variants of it. */
const hasTemplate = (profile: ProfileRow): boolean =>
  !!profile.opening_message || parseVariants(profile.opening_variants).length > 0;

/**
 * What became of an opening asked for: `scheduled` (rendered from the
 * profile's template and recorded as a message), `composing` (the profile has
 * no template: the agent writes it from the profile's instructions and the
 * lead's context, in the worker, then it is recorded and sent like any
 * message), or `not_sent` with the reason (the same opening was already made).
 */
export type OpeningResult =
  | { status: 'scheduled'; messageId: string; reason: null }
  | { status: 'composing'; messageId: null; reason: null }
  | { status: 'not_sent'; messageId: string | null; reason: string };

/**
 * Records a profile's opening message, rendered for the lead, and schedules its
 * send at `runAt`, in the caller's transaction: the change that causes it and
 * the message commit together, and the message is visible on the lead at once.
 * The compliance gate decides when the send is due (an address that opted out
 * before is blocked, and recorded so). Answers undefined when the template
 * renders to nothing.
 */
export async function scheduleOpening(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  profile: ProfileRow,
  runAt: Date,
  now: Date,
  campaignId: string | null = null,
): Promise<string | undefined> {
  // A/B (docs/analytics.md): with variants, the lead's variant (a hash of its id: the same on every retry) is the template.
  const variant = pickVariant(parseVariants(profile.opening_variants), profile.name, lead.id);
  const template = variant?.text ?? profile.opening_message;
  if (!template) return undefined;
  const text = renderTemplate(template, lead);
  if (text === '') return undefined;
  const at = now.toISOString();
  // A profile that calls first (call-records/waiting-calls.ts): the opening is the live call's greeting.
  const messageId = (await opensByCall(trx, organizationId, lead))
    ? await queueOpeningCall(trx, { organizationId, lead, text, runAt, now, campaignId })
    : await scheduleSend(trx, {
        organizationId,
        lead,
        channel: defaultChannel(lead),
        text,
        runAt,
        sendWhenOff: false,
        isAiGenerated: true,
        now: at,
        campaignId,
      });
  if (variant) await setOpeningVariant(trx, organizationId, messageId, variant.name);
  await insertOpening(trx, organizationId, {
    id: newId(),
    lead_id: lead.id,
    profile: profile.name,
    kind: 'template',
    status: 'scheduled',
    message_id: messageId,
    send_at: runAt.toISOString(),
    error: null,
    created_at: at,
    updated_at: at,
    campaign_id: campaignId,
  });
  return messageId;
}

/**
 * Whether this profile's opening was already made for the lead while it is on
 * that profile: a re-switch to the same profile (or a client's retry) must not
 * greet the lead twice. An opening still being written counts; one the gate
 * blocked or the provider failed never reached the lead, so it does not.
 */
async function openingAlreadyMade(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  profile: string,
): Promise<{ messageId: string | null } | undefined> {
  if (lead.customer_profile !== profile) return undefined;
  const last = await latestOpening(trx, organizationId, lead.id);
  if (!last || last.profile !== profile) return undefined;
  if (last.status === 'composing') return { messageId: null };
  if (last.status !== 'scheduled' || !last.message_id) return undefined;
  const message = await findMessage(trx, organizationId, last.message_id);
  if (!message || message.status === 'blocked' || message.status === 'failed') return undefined;
  return { messageId: message.id };
}

/**
 * A switch with `sendMessage`, in its transaction (the lead row locked, read
 * before the switch). With a template, the rendered opening is recorded and
 * scheduled at `runAt`. Without one, the opening is not an error: it is
 * recorded as being composed and the agent writes it at once in the worker
 * (job `ai.opening`), then it is scheduled for `runAt` through the gate like
 * any send. The same profile's opening is never made twice in a row.
 */
export async function requestOpening(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  profile: ProfileRow,
  runAt: Date,
  now: Date,
  campaignId: string | null = null,
): Promise<OpeningResult> {
  const made = await openingAlreadyMade(trx, organizationId, lead, profile.name);
  if (made)
    return {
      status: 'not_sent',
      messageId: made.messageId,
      reason: `the opening of customer profile ${profile.name} was already sent to this lead`,
    };
  const switched = { ...lead, customer_profile: profile.name };
  if (hasTemplate(profile)) {
    const messageId = await scheduleOpening(trx, organizationId, switched, profile, runAt, now, campaignId);
    if (messageId) return { status: 'scheduled', messageId, reason: null };
  }
  const at = now.toISOString();
  const id = newId();
  await insertOpening(trx, organizationId, {
    id,
    lead_id: lead.id,
    profile: profile.name,
    kind: 'composed',
    status: 'composing',
    message_id: null,
    send_at: runAt.toISOString(),
    error: null,
    created_at: at,
    updated_at: at,
    campaign_id: campaignId,
  });
  // Written now (the message is visible on the lead as soon as the agent is done), sent at runAt.
  await enqueueJob(trx, organizationId, 'ai.opening', { leadId: lead.id, openingId: id }, now, at);
  return { status: 'composing', messageId: null, reason: null };
}

/**
 * On lead creation, in its transaction: when the AI is on, the profile's
 * opening message, if it has a template, goes out now (sms when the lead has a
 * phone, else email). Nobody is messaged on creation by a profile without one.
 */
export async function scheduleOpeningMessage(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  profile: ProfileRow,
  now: Date,
  maySend: boolean,
): Promise<void> {
  if (lead.is_ai_on !== 1 || !hasTemplate(profile)) return;
  // A caller without messages:write cannot make a message go out this way either; the transaction rolls back.
  if (!maySend) throw new Forbidden();
  await scheduleOpening(trx, organizationId, lead, profile, now, now);
}
