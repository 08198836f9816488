/**
 * Row types of every table. Both dialects store the same shapes: text ids
 * (UUIDv7), ISO-8601 UTC text timestamps (fixed width, so they sort), JSON as
 * text and booleans as 0/1 integers. One representation keeps the mappers and
 * the queries identical on SQLite and PostgreSQL.
 */
import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';

export type Flag = 0 | 1;
export type MessagePurpose = 'conversation' | 'compliance' | 'stop_confirmation';
export type SubscriptionStatus = 'subscribed' | 'unsubscribed';

export interface OrganizationsTable {
  id: string;
  name: string;
  settings: string;
  created_at: string;
  /** E.164; unique across organizations (inbound provider webhooks are routed by it). */
  sending_number: ColumnType<string | null, string | null | undefined, string | null>;
  /** When and why (`twilio:30034`) the carrier refused `sending_number` as a sender (0047); null while usable, cleared when it changes. */
  sending_number_unusable_at: ColumnType<string | null, string | null | undefined, string | null>;
  sending_number_unusable_code: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  prefix: string;
  digest: string;
  scopes: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface CustomerProfilesTable {
  organization_id: string;
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  opening_message: string | null;
  questions: string;
  created_at: string;
  updated_at: string;
  /** Plain-English notification conditions (0030): JSON [{name, condition}]; null: none. */
  notifications: ColumnType<string | null, string | null | undefined, string | null>;
  /** A/B variants of the opening (0032): JSON [{name, text, weight}]; null when none. */
  opening_variants: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface LeadsTable {
  organization_id: string;
  id: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  email: string | null;
  customer_profile: string;
  time_zone: string | null;
  external_lead_id: string | null;
  additional_info: string;
  summary: string | null;
  has_replied: Flag;
  is_hot: Flag;
  is_qualified: Flag;
  /** 0029: the lead has a booked appointment to come (src/appointments/). */
  is_booked?: Flag;
  is_ai_on: Flag;
  sms_status: SubscriptionStatus;
  voice_status: SubscriptionStatus;
  email_status: SubscriptionStatus;
  sms_opt_out_source: string | null;
  voice_opt_out_source: string | null;
  email_opt_out_source: string | null;
  memory_cleared_at: string | null;
  created_at: string;
  updated_at: string;
  last_activity_at: string | null;
  /** The follow-up cadence (0009, src/followups/): JSON text of step number to {hours, channel, ...}; null when none. */
  follow_up_config: ColumnType<string | null, string | null | undefined, string | null>;
  /** The step the cadence is at (the next to go out); -1 stopped, -2 long-term nurture; null none. */
  follow_up_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** When that step fires; null when nothing is scheduled. */
  follow_up_due_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** Raised by every reschedule and stop: a job made for an older generation does nothing. */
  follow_up_generation: ColumnType<number, number | undefined, number>;
  /** What last happened to the cadence (why a step did not go out). */
  follow_up_note: ColumnType<string | null, string | null | undefined, string | null>;
  /** The sticky pool number of each channel (0015, src/sending-numbers/); null until first contact, or a deleted number's id until the next send. */
  sms_sending_number_id: ColumnType<string | null, string | null | undefined, string | null>;
  voice_sending_number_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The keyed digest of the address a provider called invalid or unreachable on the channel, and its code (0031): the gate blocks it while the address is unchanged. */
  sms_unreachable_digest: ColumnType<string | null, string | null | undefined, string | null>;
  sms_unreachable_code: ColumnType<string | null, string | null | undefined, string | null>;
  voice_unreachable_digest: ColumnType<string | null, string | null | undefined, string | null>;
  voice_unreachable_code: ColumnType<string | null, string | null | undefined, string | null>;
  email_unreachable_digest: ColumnType<string | null, string | null | undefined, string | null>;
  email_unreachable_code: ColumnType<string | null, string | null | undefined, string | null>;
  /** The user who owns the lead (0030, src/handoffs/); null when nobody does. */
  owner_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A tag on a lead (0008: keyed by organization, lead and tag id; name and condition copied from `tags`). */
export interface LeadTagsTable {
  organization_id: string;
  id: string;
  lead_id: string;
  name: string;
  condition: string;
  created_at: string;
}

/** The organization's tags (0008): one id per name, shared by every lead that carries it. */
export interface TagsTable {
  organization_id: string;
  id: string;
  name: string;
  condition: string;
  created_at: string;
}

/** What GET /v1/leads shows of an erased lead (0008): its id and two times, nothing personal. */
export interface DeletedLeadsTable {
  organization_id: string;
  id: string;
  created_at: string;
  deleted_at: string;
}

export interface LeadNotesTable {
  organization_id: string;
  id: string;
  lead_id: string;
  kind: 'context' | 'command';
  text: string;
  created_at: string;
  consumed_at: string | null;
}

export interface MessagesTable {
  organization_id: string;
  id: string;
  lead_id: string;
  channel: 'sms' | 'voice' | 'email';
  direction: 'outbound' | 'inbound';
  owner: 'user' | 'lead';
  text: string;
  is_ai_generated: Flag;
  status: string;
  status_reason: string | null;
  scheduled_at: string | null;
  created_at: string;
  /** conversation: anything the agent or the organization says; compliance: HELP answers and opt-out confirmations. */
  purpose: ColumnType<MessagePurpose, MessagePurpose | undefined, MessagePurpose>;
  provider_message_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why the send is blocked or waiting, as a code (BLOCK_CODES in compliance/gate.ts); null once it went out. */
  status_code: ColumnType<string | null, string | null | undefined, string | null>;
  /** Sent by the follow-up cadence (0009), and the step it was. */
  is_follow_up: ColumnType<Flag, Flag | undefined, Flag>;
  follow_up_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** When the message last changed (0011); the lead timeline pages by it. */
  updated_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** sendMessage `scheduleFollowUps` (0011): 1 when the organization asked for follow-ups after this send. */
  schedule_follow_ups: ColumnType<Flag | null, Flag | null | undefined, Flag | null>;
  /** SMS segments it went out as (0015); null for other channels and before it is handed over. */
  segments: ColumnType<number | null, number | null | undefined, number | null>;
  /** The pool number it is reserved on or went out from (0015); null for an organization without a pool. */
  sending_number_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The pacing slot it was given on that number (0015): it waits for it, or went at it; null without one. */
  paced_until: ColumnType<string | null, string | null | undefined, string | null>;
  /** When it first asked for a slot (0020): a fresh slot after a lag keeps it, and the maximum wait counts from it. */
  paced_since: ColumnType<string | null, string | null | undefined, string | null>;
  /** The campaign whose opening this is (0016); null for every other message. */
  campaign_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** An email's subject line (0038), apart from `text` (its body); null otherwise, and on rows written before 0038 (their text holds it). */
  subject: ColumnType<string | null, string | null | undefined, string | null>;
  /** The lead's inbound message this one answers (0027): the gate lets a reply go at night only within the reply window after it. */
  in_reply_to: ColumnType<string | null, string | null | undefined, string | null>;
  /** When a provider call for it began and no outcome is recorded yet (0026): after a crash the send is reconciled, not repeated. */
  attempt_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** The sender that attempt used (0026): the provider's list of messages is searched by it. */
  attempt_from: ColumnType<string | null, string | null | undefined, string | null>;
  /** The provider's error code of a failed send or delivery report (0031), `twilio:30007`; null otherwise. */
  error_code: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its class (0031, deliverability/error-codes.ts): filtered sends are counted by it. */
  error_class: ColumnType<string | null, string | null | undefined, string | null>;
  /** Transitions analytics already counted (0032): 1 sent, 2 delivered, 4 failed. */
  analytics_counted: ColumnType<number, number | undefined, number>;
  /** The opening variant it was written from (0032); null otherwise. */
  opening_variant: ColumnType<string | null, string | null | undefined, string | null>;
  /** The settings number it went from (0047): the per-number rules of deliverability read its window by it; null for a pool number's sends and email. */
  from_number: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface UnmatchedInboundTable {
  organization_id: string;
  id: string;
  channel: 'sms' | 'voice' | 'email';
  sender: string;
  recipient: string | null;
  text: string;
  created_at: string;
}

export interface DncEntriesTable {
  organization_id: string;
  phone: string;
  source: string;
  created_at: string;
}

/** Opt-outs that outlive an erased lead, keyed by a digest of the address. */
export interface SuppressionsTable {
  organization_id: string;
  channel: 'sms' | 'voice' | 'email';
  address_digest: string;
  source: string;
  created_at: string;
  /** hmac: keyed by the instance secret (every new row); sha256: an unkeyed digest from before, only matched. */
  digest_kind: ColumnType<'hmac' | 'sha256', 'hmac' | 'sha256' | undefined, 'hmac' | 'sha256'>;
}

export type ConsentAction = 'opt_out' | 'opt_in';

/** Every subscription change, append-only: what changed, for which address (digest), caused by whom. */
export interface ConsentLedgerTable {
  organization_id: string;
  id: string;
  /** Null when the change was made for an address no lead holds (an unsubscribe link of an erased lead). */
  lead_id: string | null;
  channel: 'sms' | 'voice' | 'email';
  address_digest: string;
  action: ConsentAction;
  source: string;
  reason: string | null;
  /** Who or what caused it: `key:<prefix>`, `twilio:<MessageSid>`, `link`, `agent`, `system`. */
  actor: string | null;
  inbound_message_id: string | null;
  created_at: string;
}

/** One External Compliance Check of one send: allowed or blocked, and how (approved, rejected, failed open or closed). */
export interface SendChecksTable {
  organization_id: string;
  id: string;
  message_id: string;
  lead_id: string;
  outcome: 'allowed' | 'blocked';
  detail: string;
  reason: string | null;
  latency_ms: number;
  created_at: string;
}

/** The transactional outbox: one row per event, written with the change. */
export interface EventsTable {
  organization_id: string;
  id: string;
  type: string;
  payload: string;
  created_at: string;
  dispatched_at: string | null;
  /** The lead the event is about, its payload's `leadId` (0045); null for an event about none. */
  lead_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhookEndpointsTable {
  organization_id: string;
  id: string;
  url: string;
  description: string | null;
  /** JSON array of event types, or null for every event. */
  events: string | null;
  /** Kept in clear: every delivery is signed with it. */
  secret: string;
  enabled: Flag;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  organization_id: string;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  /** A claimed row is invisible to other workers until this passes (a dead worker's rows come back). */
  lease_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  /** Each attempt's answer (0039): JSON lines {at, statusCode, error}, appended per attempt; null before any (or before 0039). */
  answers: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its event's lead (0045): an endpoint's deliveries of one lead are read by index. */
  lead_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export type JobStatus = 'pending' | 'done' | 'failed';

export interface JobsTable {
  organization_id: string;
  id: string;
  name: string;
  payload: string;
  status: JobStatus;
  run_at: string;
  attempts: number;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** The claim's fence: set anew by each claim; only its holder may complete the job. */
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 while the job is due at an exact instant (a paced send's slot): claimed ahead of older due jobs (0021). */
  punctual: ColumnType<number, number | undefined, number>;
}

export interface IdempotencyKeysTable {
  organization_id: string;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  status: 'running' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

/** Keys of the installation (not of an organization), e.g. the unsubscribe-link key when PARLEY_SIGNING_SECRET is unset. */
export interface InstanceSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

/**
 * pending: queued or thinking; done: its actions applied; skipped: the AI was
 * off or a newer message superseded it; failed: no valid answer after every retry.
 */
export type AgentTurnStatus = 'pending' | 'done' | 'skipped' | 'failed';

/** One AI turn per triggering inbound message (unique), so a re-run job never acts twice. */
export interface AgentTurnsTable {
  organization_id: string;
  id: string;
  lead_id: string;
  trigger_message_id: string;
  status: AgentTurnStatus;
  /** JSON array of the types of the actions applied; null until done. */
  actions: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  /** JSON array of the turn's steps (0029): each step's tool calls and their results; null before 0029 or while pending. */
  steps: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface Database {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  customer_profiles: CustomerProfilesTable;
  leads: LeadsTable;
  lead_tags: LeadTagsTable;
  tags: TagsTable;
  deleted_leads: DeletedLeadsTable;
  lead_notes: LeadNotesTable;
  messages: MessagesTable;
  dnc_entries: DncEntriesTable;
  suppressions: SuppressionsTable;
  consent_ledger: ConsentLedgerTable;
  send_checks: SendChecksTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  jobs: JobsTable;
  idempotency_keys: IdempotencyKeysTable;
  unmatched_inbound: UnmatchedInboundTable;
  instance_secrets: InstanceSecretsTable;
  agent_turns: AgentTurnsTable;
  lead_openings: LeadOpeningsTable;
  sending_numbers: SendingNumbersTable;
  campaigns: CampaignsTable;
  campaign_enrollments: CampaignEnrollmentsTable;
  imports: ImportsTable;
  import_rejects: ImportRejectsTable;
  import_reject_keys: ImportRejectKeysTable;
  provider_receipts: ProviderReceiptsTable;
  users: UsersTable;
  console_sessions: ConsoleSessionsTable;
  console_reads: ConsoleReadsTable;
  handoffs: HandoffsTable;
  handoff_alerts: HandoffAlertsTable;
  calls: CallsTable;
  profile_voice: ProfileVoiceTable;
  appointments: AppointmentsTable;
  appointment_slots: AppointmentSlotsTable;
  appointment_reminders: AppointmentRemindersTable;
  user_availability: UserAvailabilityTable;
  analytics_leads: AnalyticsLeadsTable;
  analytics_rollups: AnalyticsRollupsTable;
  analytics_latency: AnalyticsLatencyTable;
  analytics_numbers: AnalyticsNumbersTable;
  analytics_errors: AnalyticsErrorsTable;
  analytics_pending: AnalyticsPendingTable;
  analytics_variants: AnalyticsVariantsTable;
  analytics_day_versions: AnalyticsDayVersionsTable;
  analytics_day_percentiles: AnalyticsDayPercentilesTable;
}

/** One part of a hand-off alert that went out (0030): key = alert, recipient and channel. */
export interface HandoffAlertsTable {
  organization_id: string;
  key: string;
  sent_at: string;
}

export type HandoffStatus = 'open' | 'acknowledged' | 'closed';

/** A lead handed to a person (0030, src/handoffs/). */
export interface HandoffsTable {
  organization_id: string;
  id: string;
  lead_id: string;
  owner_id: string | null;
  raised_at: string;
  reason: string | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  /** The first human touch: an acknowledgement, a human reply or a call. */
  first_touch_at: string | null;
  first_touch_kind: string | null;
  /** 0: the first owner; 1: escalated to the next rep; 2: to the admins. */
  escalation_level: ColumnType<number, number | undefined, number>;
  status: HandoffStatus;
  updated_at: string;
}

export type SendingNumberKind = 'longCode' | 'tollFree' | 'shortCode';

/** A pool number of an organization (0015, src/sending-numbers/), and its pacing bucket. */
export interface SendingNumbersTable {
  organization_id: string;
  id: string;
  /** E.164; unique across the instance (inbound webhooks are routed by it). */
  number: string;
  kind: SendingNumberKind;
  channel: 'sms' | 'voice';
  rate_per_second: number;
  daily_cap: number | null;
  /** Epoch ms (fractional): the earliest start of the next reservation. */
  next_slot_ms: ColumnType<number, number | undefined, number>;
  /** Epoch ms (fractional, 0020): the earliest instant the next segment may actually leave. */
  departure_ms: ColumnType<number, number | undefined, number>;
  /** The UTC date (YYYY-MM-DD) day_segments counts. */
  day: ColumnType<string | null, string | null | undefined, string | null>;
  day_segments: ColumnType<number, number | undefined, number>;
  assigned_leads: ColumnType<number, number | undefined, number>;
  created_at: string;
  updated_at: string;
  /** When the carrier refused it as a sender, and the code (0031): the pool no longer assigns it. */
  unusable_at: ColumnType<string | null, string | null | undefined, string | null>;
  unusable_code: ColumnType<string | null, string | null | undefined, string | null>;
}

/** composing: the agent is writing it; scheduled: recorded as a message; skipped: nothing to send; failed: the agent could not write it. */
export type OpeningStatus = 'composing' | 'scheduled' | 'skipped' | 'failed';

/** Each opening message a profile asked for (0011): rendered from the template, or composed by the agent. */
export interface LeadOpeningsTable {
  organization_id: string;
  id: string;
  lead_id: string;
  profile: string;
  kind: 'template' | 'composed';
  status: OpeningStatus;
  message_id: string | null;
  send_at: string;
  error: string | null;
  created_at: string;
  updated_at: string;
  /** The campaign that asked for it (0016); null otherwise. */
  campaign_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** enrolling: its snapshot is being written (invisible to the API); the rest are docs/campaigns.md's states. */
export type CampaignStatus = 'enrolling' | 'scheduled' | 'running' | 'paused' | 'completed' | 'cancelled';

/** A campaign (0016): a profile's opening sent to a filtered snapshot of leads, at most daily_cap a day. */
export interface CampaignsTable {
  organization_id: string;
  id: string;
  name: string;
  customer_profile: string;
  /** The filter as the client wrote it (JSON text). */
  filter: string;
  start_at: string;
  daily_cap: number;
  status: CampaignStatus;
  /** Raised by pause, resume and cancel: a campaign.run job of an older generation does nothing. */
  run_generation: ColumnType<number, number | undefined, number>;
  created_at: string;
  updated_at: string;
  completed_at: ColumnType<string | null, string | null | undefined, string | null>;
  cancelled_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why it paused itself (0031): FILTERED and a sentence; null when paused by hand or not paused. */
  pause_code: ColumnType<string | null, string | null | undefined, string | null>;
  pause_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

/** pending: not yet handed to the send path; queued: its opening was (the message tells the rest). */
export type EnrollmentStatus = 'pending' | 'queued' | 'blocked' | 'replied' | 'opted_out' | 'failed' | 'cancelled';

/** One lead of a campaign's snapshot (0016). */
export interface CampaignEnrollmentsTable {
  organization_id: string;
  campaign_id: string;
  lead_id: string;
  status: EnrollmentStatus;
  /** Why it is blocked, failed or stopped, as a code (the gate's, or the campaign's own) and a sentence. */
  reason_code: string | null;
  reason: string | null;
  message_id: string | null;
  opening_id: string | null;
  /** The organization's local date (YYYY-MM-DD) its opening was queued on: the daily cap counts these. */
  queued_day: string | null;
  created_at: string;
  updated_at: string;
}

export type UserRole = 'viewer' | 'agent' | 'admin';

/** A person who signs in to the console (0017); email is unique in the instance, lowercased. */
export interface UsersTable {
  organization_id: string;
  id: string;
  email: string;
  role: UserRole;
  /** `scrypt$N$r$p$salt$hash` (base64url salt and hash): parameters travel with the hash. */
  password_hash: string;
  created_at: string;
  disabled_at: string | null;
  /** Sales-rep fields (0030, src/handoffs/): the rep's own phone, open hand-offs at once (null: no limit), hours as JSON {days, start, end} (null: any time) in time_zone, the away switch. */
  phone: ColumnType<string | null, string | null | undefined, string | null>;
  capacity: ColumnType<number | null, number | null | undefined, number | null>;
  working_hours: ColumnType<string | null, string | null | undefined, string | null>;
  time_zone: ColumnType<string | null, string | null | undefined, string | null>;
  is_away: ColumnType<Flag, Flag | undefined, Flag>;
}

/** A console sign-in (0017): id is the SHA-256 digest of the cookie's token, never the token. */
export interface ConsoleSessionsTable {
  id: string;
  organization_id: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute end; the idle end is last_seen_at plus the configured idle time. */
  expires_at: string;
  revoked_at: string | null;
}

/** When a user last read a lead's conversation (0017). */
export interface ConsoleReadsTable {
  organization_id: string;
  user_id: string;
  lead_id: string;
  last_read_at: string;
}

/** A connection or an open transaction: repositories accept either. */
export type Db = Kysely<Database> | Transaction<Database>;

/** A CSV import of leads (0014, src/imports/): its state and counts, advanced with each committed batch. */
export interface ImportsTable {
  organization_id: string;
  id: string;
  status: 'running' | 'completed' | 'failed';
  /** `api` (POST /v1/imports) or `cli` (parley import leads). */
  source: string;
  /** JSON of the options it ran with (profile, onDuplicate, startConversations, dryRun, map). */
  options: string;
  /** JSON array of the file's header line, as written; null until read. */
  headers: string | null;
  total: ColumnType<number, number | undefined, number>;
  created: ColumnType<number, number | undefined, number>;
  updated: ColumnType<number, number | undefined, number>;
  skipped: ColumnType<number, number | undefined, number>;
  rejected: ColumnType<number, number | undefined, number>;
  /** Rows imported without a field that was not valid (0033). */
  warned: ColumnType<number, number | undefined, number>;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Last sign of life of the process running it (0019): a running import whose beat is old was cut off. */
  heartbeat_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A row an import rejected (0014): its spreadsheet row number, the row as read (JSON) and why. */
export interface ImportRejectsTable {
  organization_id: string;
  import_id: string;
  row_number: number;
  raw: string;
  /** Empty for a row imported with warnings (0033). */
  reason: string;
  /** Fields left out of an imported row, and why (0033); null for a rejected row. */
  warnings: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The keyed digest of each address a rejected row names (0025): how an erasure finds the row. */
export interface ImportRejectKeysTable {
  organization_id: string;
  import_id: string;
  row_number: number;
  digest: string;
}

/** A provider webhook already processed (0025): its id only (`twilio:<MessageSid>`, `twilio:<CallSid>:gather`), outliving any erasure. */
export interface ProviderReceiptsTable {
  organization_id: string;
  id: string;
  received_at: string;
}

/** A live call (0028, src/calls/): placed or answered by the agent over ConversationRelay. */
export interface CallsTable {
  organization_id: string;
  id: string;
  lead_id: string | null;
  direction: 'outbound' | 'inbound';
  status: string;
  status_code: ColumnType<string | null, string | null | undefined, string | null>;
  status_reason: ColumnType<string | null, string | null | undefined, string | null>;
  outcome: ColumnType<string | null, string | null | undefined, string | null>;
  provider_call_id: ColumnType<string | null, string | null | undefined, string | null>;
  from_number: ColumnType<string | null, string | null | undefined, string | null>;
  to_number: ColumnType<string | null, string | null | undefined, string | null>;
  voicemail_enabled: ColumnType<Flag, Flag | undefined, Flag>;
  started_at: ColumnType<string | null, string | null | undefined, string | null>;
  answered_at: ColumnType<string | null, string | null | undefined, string | null>;
  ended_at: ColumnType<string | null, string | null | undefined, string | null>;
  duration_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  greeting: ColumnType<string | null, string | null | undefined, string | null>;
  summary: ColumnType<string | null, string | null | undefined, string | null>;
  handoff_data: ColumnType<string | null, string | null | undefined, string | null>;
  transfer_to: ColumnType<string | null, string | null | undefined, string | null>;
  /** When call.completed was emitted for it: at most once. */
  completed_event_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** The follow-up step this call is (followups/), or null. */
  follow_up_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** The opening message this call speaks (0037, call-records/waiting-calls.ts), or null. */
  message_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1: a person's message sent as a call (0040, sendMessage with channel voice): the gate asks as for their message. */
  placed_by_person: ColumnType<number | null, number | null | undefined, number | null>;
  /** 1: the sender lifted the organization's contact hours for it (0040). */
  override_business_hours: ColumnType<number | null, number | null | undefined, number | null>;
  /** 1: the sender asked for it to go with the AI off (0040, sendMessage sendWhenOff). */
  send_when_off: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: string;
  updated_at: string;
}

export type AppointmentStatus = 'booked' | 'cancelled' | 'no_show';
export type CalendarProviderName = 'embedded' | 'calcom';

/** A meeting of a lead with an owner (0029, src/appointments/). */
export interface AppointmentsTable {
  organization_id: string;
  id: string;
  lead_id: string;
  owner_user_id: string | null;
  start_at: string;
  end_at: string;
  /** The lead's zone when booked: how the slot was offered. */
  time_zone: string;
  status: AppointmentStatus;
  provider: CalendarProviderName;
  /** Cal.com's booking uid; null on the embedded calendar. */
  external_id: string | null;
  notes: string | null;
  created_by_turn_id: string | null;
  /** Idempotency of the booking (the agent's: `<turn>:<step>:<call>`); unique per organization. */
  booking_key: string | null;
  created_at: string;
  updated_at: string;
}

/** A profile's call settings (0028, src/call-records/voice-settings.ts), JSON text; no row: the defaults. */
export interface ProfileVoiceTable {
  organization_id: string;
  profile_name: string;
  settings: string;
  updated_at: string;
}

/** One 15-minute block of an owner's calendar held by a booked appointment (0029): the primary key forbids double booking. */
export interface AppointmentSlotsTable {
  organization_id: string;
  /** The owner's user id, or `-` for the organization's own calendar. */
  owner_key: string;
  block_start: string;
  appointment_id: string;
}

export interface AppointmentRemindersTable {
  organization_id: string;
  id: string;
  appointment_id: string;
  /** `reminder` (minutes before) or `no_show` (the follow-up). */
  kind: string;
  due_at: string;
  status: 'pending' | 'sent' | 'skipped';
  message_id: string | null;
  created_at: string;
}

/** A user's weekly hours for the embedded calendar (0029): JSON `{mon: [["09:00","17:00"]], ...}`. */
export interface UserAvailabilityTable {
  organization_id: string;
  user_id: string;
  time_zone: string;
  weekly_hours: string;
  updated_at: string;
}

/** One lead's funnel facts and the dimensions it is counted under (0032, src/analytics/). '' is "none". */
export interface AnalyticsLeadsTable {
  organization_id: string;
  lead_id: string;
  created_at: string;
  profile: string;
  /** `api`, `import:<id>`, `inbound`, `unknown` (created before analytics). */
  source: string;
  campaign_id: ColumnType<string, string | undefined, string>;
  sending_number_id: ColumnType<string, string | undefined, string>;
  first_sent_at: ColumnType<string | null, string | null | undefined, string | null>;
  first_delivered_at: ColumnType<string | null, string | null | undefined, string | null>;
  replied_at: ColumnType<string | null, string | null | undefined, string | null>;
  hot_at: ColumnType<string | null, string | null | undefined, string | null>;
  qualified_at: ColumnType<string | null, string | null | undefined, string | null>;
  booked_at: ColumnType<string | null, string | null | undefined, string | null>;
  opted_out_at: ColumnType<string | null, string | null | undefined, string | null>;
  variant_profile: ColumnType<string | null, string | null | undefined, string | null>;
  variant: ColumnType<string | null, string | null | undefined, string | null>;
}

type Counter = ColumnType<number, number | undefined, number>;

/** Funnel counters per report dimension and group, per UTC day ('YYYY-MM-DD') and month ('YYYY-MM') (0032). */
export interface AnalyticsRollupsTable {
  organization_id: string;
  dim: 'day' | 'profile' | 'campaign' | 'sendingNumber' | 'source';
  period: string;
  value: string;
  leads: Counter;
  contacted: Counter;
  delivered: Counter;
  replied: Counter;
  hot: Counter;
  qualified: Counter;
  booked: Counter;
  opted_out: Counter;
  failed: Counter;
}

/** Speed to lead histograms (0032): per report dimension and value, per UTC day ('YYYY-MM-DD') and month ('YYYY-MM'). */
export interface AnalyticsLatencyTable {
  organization_id: string;
  dim: 'day' | 'profile' | 'campaign' | 'sendingNumber' | 'source';
  period: string;
  value: string;
  kind: 'sent' | 'delivered';
  bucket: ColumnType<number | string, number, number>;
  count: Counter;
}

/** Sends per (organization, UTC day or month, sending number) (0032). */
export interface AnalyticsNumbersTable {
  organization_id: string;
  period: string;
  sending_number_id: string;
  sent: Counter;
  delivered: Counter;
  failed: Counter;
}

/** Per profile and opening variant: the leads first sent it, and of those how many replied, qualified, booked, opted out (0049). */
export interface AnalyticsVariantsTable {
  organization_id: string;
  profile: string;
  variant: string;
  sent: Counter;
  replied: Counter;
  qualified: Counter;
  booked: Counter;
  opted_out: Counter;
}

/** A count not yet folded into its rollup table (0043, src/analytics-records/pending.repository.ts). */
export interface AnalyticsPendingTable {
  id: Generated<number | string>;
  organization_id: string;
  target: 'analytics_rollups' | 'analytics_latency' | 'analytics_numbers' | 'analytics_errors' | 'analytics_variants';
  /** JSON array of the target's rows (every column but the counter). */
  cells: string;
  counter: string;
  amount: number;
}

/** How many folds changed an organization's day of histograms (0044, src/analytics/day-percentiles.repository.ts). */
export interface AnalyticsDayVersionsTable {
  organization_id: string;
  period: string;
  version: number;
}

/** One day's speed-to-lead percentiles, as computed at the day's `version` (0044). */
export interface AnalyticsDayPercentilesTable {
  organization_id: string;
  dim: AnalyticsLatencyTable['dim'];
  period: string;
  value: string;
  kind: 'sent' | 'delivered';
  version: number;
  count: ColumnType<number | string, number, number>;
  p50: ColumnType<number | string | null, number | null, number | null>;
  p90: ColumnType<number | string | null, number | null, number | null>;
  p95: ColumnType<number | string | null, number | null, number | null>;
}

/** Failures per error code (0032); class null until a classifier names it. */
export interface AnalyticsErrorsTable {
  organization_id: string;
  period: string;
  sending_number_id: string;
  code: string;
  class: string | null;
  count: Counter;
}
