import { findLead } from '../leads/leads.repository.js';
import { scheduleSend } from '../messages/send.service.js';
import type { Db } from '../platform/db/schema.js';
import { findProfileByName } from '../profiles/profiles.repository.js';
import { renderTemplate } from '../profiles/template.js';

/**
 * On lead creation, in its transaction: when the AI is on and the profile has
 * an opening message, the rendered message is recorded and its send scheduled
 * now (sms when the lead has a phone, else email). The compliance gate decides
 * at send time (an address that opted out before is blocked, and recorded so).
 */
export async function scheduleOpeningMessage(trx: Db, organizationId: string, leadId: string, now: Date): Promise<void> {
  const lead = await findLead(trx, organizationId, leadId);
  if (!lead || lead.is_ai_on !== 1) return;
  const profile = await findProfileByName(trx, organizationId, lead.customer_profile);
  if (!profile?.opening_message) return;
  const text = renderTemplate(profile.opening_message, lead);
  if (text === '') return;
  await scheduleSend(trx, {
    organizationId, lead, channel: lead.phone ? 'sms' : 'email', text, runAt: now, sendWhenOff: false, isAiGenerated: true, now: now.toISOString(),
  });
}
