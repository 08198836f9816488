import type { Insertable, Updateable } from 'kysely';
import type { LeadsTable } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import { CHANNELS, sourceColumn, statusColumn, type ChannelName } from '../lead-records/channels.js';

/** A lead as a create gives it, normalised (phone in E.164, email lower case). */
export interface NewLead {
  firstName: string;
  lastName?: string;
  phone: string | null;
  email: string | null;
  customerProfile: string;
  timeZone?: string;
  externalLeadId?: string;
  additionalInfo: Record<string, unknown>;
  isAiOn: boolean;
}

/**
 * Subscription columns of the given channels for a (new) address: subscribed
 * unless that address opted out before (`suppressed`: channel -> opt-out
 * source, from suppression-records/suppressions.repository.ts).
 */
export function subscriptionColumns(
  suppressed: ReadonlyMap<ChannelName, string>,
  channels: readonly ChannelName[] = CHANNELS,
): Updateable<LeadsTable> {
  const cols: Partial<Record<string, string | null>> = {};
  for (const c of channels) {
    const source = suppressed.get(c);
    cols[statusColumn(c)] = source ? 'unsubscribed' : 'subscribed';
    cols[sourceColumn(c)] = source ?? null;
  }
  return cols as Updateable<LeadsTable>;
}

/**
 * The row of a new lead, every column written: the one definition the API's
 * create and the CSV import share, so an imported lead is exactly the lead
 * POST /v1/leads/create would have made of the same fields.
 */
export function newLeadRow(
  lead: NewLead,
  suppressed: ReadonlyMap<ChannelName, string>,
  at: string,
  id: string = newId(),
): Omit<Insertable<LeadsTable>, 'organization_id'> & { id: string } {
  return {
    id,
    first_name: lead.firstName,
    last_name: lead.lastName ?? '',
    phone: lead.phone,
    email: lead.email,
    customer_profile: lead.customerProfile,
    time_zone: lead.timeZone ?? null,
    external_lead_id: lead.externalLeadId ?? null,
    additional_info: JSON.stringify(lead.additionalInfo),
    summary: null,
    has_replied: 0,
    is_hot: 0,
    is_qualified: 0,
    is_ai_on: lead.isAiOn ? 1 : 0,
    // All three channels: sms_status ... email_opt_out_source.
    ...(subscriptionColumns(suppressed) as Pick<
      Insertable<LeadsTable>,
      'sms_status' | 'voice_status' | 'email_status'
    >),
    memory_cleared_at: null,
    created_at: at,
    updated_at: at,
    last_activity_at: null,
    follow_up_config: null,
    follow_up_step: null,
    follow_up_due_at: null,
    follow_up_generation: 0,
    follow_up_note: null,
    sms_sending_number_id: null,
    voice_sending_number_id: null,
  };
}
