import { findLead, type LeadRow } from '../leads/leads.repository.js';
import { defaultChannel, scheduleSend } from '../messages/send.service.js';
import type { Db } from '../platform/db/schema.js';
import { findProfileByName, type ProfileRow } from './profiles.repository.js';
import { renderTemplate } from './template.js';

/**
 * Records a profile's opening message, rendered for the lead, and schedules its
 * send at `runAt`, in the caller's transaction: the change that causes it and
 * the message commit together, and the message is visible on the lead at once.
 * The compliance gate decides when the send is due (an address that opted out
 * before is blocked, and recorded so). Answers false when there is nothing to say.
 */
export async function scheduleOpening(trx: Db, organizationId: string, lead: LeadRow, profile: ProfileRow, runAt: Date, now: Date): Promise<boolean> {
  if (!profile.opening_message) return false;
  const text = renderTemplate(profile.opening_message, lead);
  if (text === '') return false;
  await scheduleSend(trx, {
    organizationId, lead, channel: defaultChannel(lead), text, runAt, sendWhenOff: false, isAiGenerated: true, now: now.toISOString(),
  });
  return true;
}

/** On lead creation, in its transaction: when the AI is on, the profile's opening message goes out now (sms when the lead has a phone, else email). */
export async function scheduleOpeningMessage(trx: Db, organizationId: string, leadId: string, now: Date): Promise<void> {
  const lead = await findLead(trx, organizationId, leadId);
  if (!lead || lead.is_ai_on !== 1) return;
  const profile = await findProfileByName(trx, organizationId, lead.customer_profile);
  if (profile) await scheduleOpening(trx, organizationId, lead, profile, now, now);
}
