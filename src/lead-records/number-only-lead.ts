import type { LeadRow } from './leads.repository.js';

/**
 * The columns of a lead of whom nothing is known but an address: no name, no
 * zone of its own, subscribed everywhere, no history. Typed against LeadRow,
 * so a column added to leads must be given its blank value here (typecheck
 * fails until it is) instead of drifting in a copy elsewhere.
 */
const BLANK: Omit<LeadRow, 'organization_id' | 'id' | 'phone' | 'created_at' | 'updated_at'> = {
  first_name: null,
  last_name: null,
  email: null,
  customer_profile: '',
  time_zone: null,
  external_lead_id: null,
  additional_info: '{}',
  summary: null,
  has_replied: 0,
  is_hot: 0,
  is_qualified: 0,
  is_booked: 0,
  is_ai_on: 1,
  sms_status: 'subscribed',
  voice_status: 'subscribed',
  email_status: 'subscribed',
  sms_opt_out_source: null,
  voice_opt_out_source: null,
  email_opt_out_source: null,
  memory_cleared_at: null,
  last_activity_at: null,
  follow_up_config: null,
  follow_up_step: null,
  follow_up_due_at: null,
  follow_up_generation: 0,
  follow_up_note: null,
  sms_sending_number_id: null,
  voice_sending_number_id: null,
  sms_unreachable_digest: null,
  sms_unreachable_code: null,
  voice_unreachable_digest: null,
  voice_unreachable_code: null,
  email_unreachable_digest: null,
  email_unreachable_code: null,
  owner_id: null,
};

/**
 * A phone number standing in for a lead before the compliance gate, when no
 * lead holds it (the missed-call text to an unknown caller, calls/): only what
 * is kept by number judges it (its opt-outs, which outlive any lead that held
 * it; the Do Not Contact list; the zones of its area code for the night floor)
 * and the organization's own hours. Its id is empty: it is no lead, and
 * nothing is ever written under it.
 */
export function numberOnlyLead(organizationId: string, phone: string, at: string): LeadRow {
  return { ...BLANK, organization_id: organizationId, id: '', phone, created_at: at, updated_at: at };
}
