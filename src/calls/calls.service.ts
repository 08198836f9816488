import { setTimeout as sleep } from 'node:timers/promises';
import { insideWindow } from '../compliance/contact-hours.js';
import { checkOutbound, type GateDecision } from '../compliance/gate.js';
import { emitEvents } from '../events/outbox.repository.js';
import { callCompletedEvent, callTransferredEvent, handoffNotificationEvent } from '../events/payloads.js';
import { findRepRow } from '../handoff-records/handoffs.repository.js';
import { raiseHandoff } from '../handoffs/handoffs.service.js';
import { alertTeam } from '../handoffs/notify.js';
import {
  findLead,
  findLeadByAddress,
  requireLead,
  updateLead,
  type LeadRow,
} from '../lead-records/leads.repository.js';
import { numberOnlyLead } from '../lead-records/number-only-lead.js';
import { createInboundLead } from '../leads/inbound-lead.js';
import { findMessage, setMessageStatus } from '../messages/messages.repository.js';
import { scheduleSend } from '../messages/send.service.js';
import { followUpAfterSend } from '../followups/followups.service.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import type { JobOutcome } from '../jobs/names.js';
import type { Config, TwilioConfig } from '../platform/config.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { holdUntilCommit } from '../platform/db/locks.js';
import { DomainError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { isValidPhone, normalizePhone } from '../platform/phone.js';
import { renderTemplate } from '../profiles/template.js';
import { readSettings } from '../settings/settings.service.js';
import { chooseSender, replySender } from '../sending-numbers/sender.js';
import { adapterFor } from '../channels/registry.js';
import { SendError } from '../providers/channel-adapter.js';
import {
  claimCompletedEvent,
  findCall,
  missedCallTextSince,
  moveCallOutcome,
  moveCallStatusCode,
  findCallBySid,
  insertCall,
  updateCall,
  type CallRow,
} from '../call-records/calls.repository.js';
import { createCall, TwilioCallError, updateLiveCall } from '../providers/twilio/calls-api.js';
import { connectRelay, dialWithWhisper, HANG_UP, sayAndHangUp, whisper } from '../providers/twilio/relay-twiml.js';
import { DEFAULT_LANGUAGE, readVoiceSettings, type VoiceSettingsView } from '../call-records/voice-settings.js';

/** Where Twilio reaches a live call's callbacks; each carries the organization and the call, and is signed with them. */
export const callPaths = {
  relay: '/v1/providers/twilio/relay',
  action: '/v1/providers/twilio/relay/action',
  status: '/v1/providers/twilio/call-status',
  amd: '/v1/providers/twilio/amd',
  whisper: '/v1/providers/twilio/whisper',
  transferStatus: '/v1/providers/twilio/transfer-status',
  voice: '/v1/providers/twilio/voice',
} as const;

const query = (organizationId: string, callId: string) =>
  `?org=${encodeURIComponent(organizationId)}&call=${encodeURIComponent(callId)}`;
export const callbackUrl = (config: Config, path: string, organizationId: string, callId: string) =>
  config.publicUrl + path + query(organizationId, callId);
/** The relay's WebSocket URL: `wss` from an https public URL, `ws` from http. */
export const relayUrl = (config: Config, organizationId: string, callId: string) =>
  config.publicUrl.replace(/^http/, 'ws') + callPaths.relay + query(organizationId, callId);

export const OPTED_OUT_GOODBYE = 'Understood. We will not call you again. Goodbye.';
const TRANSFER_UNAVAILABLE =
  'Sorry, nobody is available to take your call right now. Someone from our team will get back to you soon. Goodbye.';
const INBOUND_UNAVAILABLE = 'Sorry, we cannot take your call right now. We will text you shortly.';
export const MISSED_CALL_TEXT = 'Sorry we missed your call. How can we help?';

class TwilioNotConfigured extends DomainError<'voice_not_configured'> {
  constructor() {
    super('voice_not_configured');
  }
}

const requireTwilio = (config: Config): TwilioConfig => {
  if (!config.twilio) throw new TwilioNotConfigured();
  return config.twilio;
};

/** What the agent says first on a call it places: the profile's greeting, else a hello by first name. */
export function greetingFor(lead: LeadRow, voice: VoiceSettingsView): string {
  if (voice.welcomeGreeting) {
    const text = renderTemplate(voice.welcomeGreeting, lead);
    if (text !== '') return text;
  }
  return lead.first_name ? `Hi ${lead.first_name}! Do you have a minute to talk?` : 'Hi! Do you have a minute to talk?';
}

export interface PlaceCallInput {
  overrideBusinessHours?: boolean;
  voicemailEnabled?: boolean;
}

export type CallStatus = 'dialing' | 'waiting' | 'blocked' | 'failed';

export interface PlacedCall {
  id: string;
  status: CallStatus;
  statusCode: string | null;
  statusReason: string | null;
  scheduledTime: string | null;
  providerCallId: string | null;
}

/** The gate's answer for a call. The External Compliance Check is asked about messages only: a call waits for it as blocked (fail closed). */
function callDecision(d: GateDecision): {
  status: CallStatus;
  code: string | null;
  reason: string | null;
  until: string | null;
} {
  switch (d.kind) {
    case 'allowed':
      return { status: 'dialing', code: null, reason: null, until: null };
    case 'blocked':
      return { status: 'blocked', code: d.code, reason: d.reason, until: null };
    case 'wait':
      return { status: 'waiting', code: d.code, reason: d.reason, until: d.until.toISOString() };
    case 'ask_external':
      return {
        status: 'blocked',
        code: 'EXTERNAL_CHECK',
        reason: 'calls are not placed while an External Compliance Check is configured',
        until: null,
      };
  }
}

interface Judged {
  decision: ReturnType<typeof callDecision>;
  from: string | null;
  departAt: Date | null;
}

/**
 * The gate's answer for a call now, under the lead's lock: the compliance
 * gate exactly as for a voice send (its frequency cap counts calls too),
 * then the voice pool's number and its pace (sending-numbers/), else the
 * settings number.
 */
async function judge(
  trx: Db,
  deps: Deps,
  organizationId: string,
  lead: LeadRow,
  now: Date,
  overrideBusinessHours: boolean,
  /** A message sent as a call (message-call.ts): judged as that message was, by a person or the agent. */
  asMessage?: { sendWhenOff: boolean; byPerson: boolean; inReplyTo: string | null },
): Promise<Judged> {
  const settings = await readSettings(trx, organizationId);
  let decision = callDecision(
    await checkOutbound(trx, deps.digests, organizationId, {
      lead,
      channel: 'voice',
      purpose: 'conversation',
      sendWhenOff: asMessage?.sendWhenOff ?? false,
      // A person's message sent as a call is asked about as their message was (sendMessage): not automated.
      automated: asMessage?.byPerson !== true,
      settings,
      now,
      overrideBusinessHours,
      // The agent's reply to the lead's words on a call is a reply like any other: its reply window counts.
      inReplyTo: asMessage?.inReplyTo ?? null,
    }),
  );
  let from = settings.sendingNumber;
  let departAt: Date | null = null;
  if (decision.status === 'dialing') {
    const sender = await chooseSender(
      trx,
      organizationId,
      lead,
      { channel: 'voice', text: '', sending_number_id: null, paced_until: null, paced_since: null },
      settings.sendingNumber,
      deps.clock,
      deps.config.pacingMaxWaitMs,
    );
    if (sender.kind === 'now') {
      from = sender.from;
      departAt = sender.departAt;
    } else if (sender.kind === 'later') {
      from = sender.number;
      decision = {
        status: 'waiting',
        code: 'PACING',
        reason: `the voice number ${sender.number} is paced: its next free slot is at ${sender.until.toISOString()}`,
        until: sender.until.toISOString(),
      };
    } else if (sender.kind === 'too_late') {
      decision = { status: 'blocked', code: 'PACING_TIMEOUT', reason: sender.reason, until: null };
    } else from = sender.from;
  }
  return { decision, from, departAt };
}

/** A waiting call's job: asked again when its time comes (contact hours open, the number's slot). */
async function scheduleRetry(
  trx: Db,
  organizationId: string,
  callId: string,
  until: string,
  at: string,
): Promise<void> {
  await enqueueJob(trx, organizationId, 'call.place', { callId }, new Date(until), at);
}

/**
 * `POST /v1/leads/{id}/call`: the gate is asked exactly as for a send on the
 * voice channel (opt-out, DNC, AI on, frequency cap, the night floor where the
 * lead is), under the lead's lock; the call row records its answer. Only an
 * allowed call is dialled: Calls.json with TwiML that connects the lead to the
 * agent over ConversationRelay, asynchronous answering-machine detection, and
 * status callbacks. A call the gate holds for contact hours or the number's
 * pace is recorded waiting, and its job asks the gate again when the time comes.
 */
export async function placeCall(
  deps: Deps,
  organizationId: string,
  leadId: string,
  input: PlaceCallInput,
): Promise<PlacedCall> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const id = newId();
  const planned = await deps.db.transaction().execute(async (trx) => {
    // Another organization's lead answers exactly as a missing one, whatever else is wrong.
    const lead = await requireLead(trx, organizationId, leadId, true);
    requireTwilio(deps.config);
    if (!lead.phone) throw new DomainError('channel_unavailable', { missing: 'phone' });
    const { decision, from, departAt } = await judge(
      trx,
      deps,
      organizationId,
      lead,
      now,
      input.overrideBusinessHours ?? false,
    );
    if (decision.status === 'dialing' && !from) throw new DomainError('no_sending_number');
    const voice = await readVoiceSettings(trx, organizationId, lead.customer_profile);
    await insertCall(trx, organizationId, {
      id,
      lead_id: lead.id,
      direction: 'outbound',
      status: decision.status,
      status_code: decision.code,
      status_reason: decision.reason,
      from_number: from,
      to_number: lead.phone,
      voicemail_enabled: (input.voicemailEnabled ?? voice.voicemailEnabled ?? false) ? 1 : 0,
      greeting: greetingFor(lead, voice),
      created_at: at,
      updated_at: at,
    });
    if (decision.status === 'waiting' && decision.until)
      await scheduleRetry(trx, organizationId, id, decision.until, at);
    return { decision, departAt };
  });
  const { decision, departAt } = planned;
  const answer: PlacedCall = {
    id,
    status: decision.status,
    statusCode: decision.code,
    statusReason: decision.reason,
    scheduledTime: decision.until,
    providerCallId: null,
  };
  if (decision.status !== 'dialing') return answer;
  const dialled = await dial(deps, organizationId, id, departAt);
  return { ...answer, ...dialled };
}

/** Dials a call the gate allowed (its row holds the numbers, the greeting and the voicemail choice). */
async function dial(
  deps: Deps,
  organizationId: string,
  callId: string,
  departAt: Date | null,
): Promise<Pick<PlacedCall, 'status' | 'statusReason' | 'providerCallId'>> {
  const twilio = requireTwilio(deps.config);
  const call = await findCall(deps.db, organizationId, callId);
  const lead = call?.lead_id ? await findLead(deps.db, organizationId, call.lead_id) : undefined;
  if (!call || !lead) return { status: 'failed', statusReason: 'the lead was erased', providerCallId: null };
  const voice = await readVoiceSettings(deps.db, organizationId, lead.customer_profile);
  const twiml = connectRelay({
    relayUrl: relayUrl(deps.config, organizationId, callId),
    actionUrl: callbackUrl(deps.config, callPaths.action, organizationId, callId),
    language: voice.language ?? DEFAULT_LANGUAGE,
    voice: voice.voice,
    welcomeGreeting: call.greeting ?? undefined,
  });
  // A paced number's call leaves at its departure, at most a moment away (sending-numbers/pacing.ts MAX_HOLD_MS).
  const hold = departAt ? departAt.getTime() - deps.clock.now().getTime() : 0;
  if (hold > 0) await sleep(hold);
  try {
    const sid = await createCall(twilio, {
      // biome-ignore lint/style/noNonNullAssertion: dial() runs only for a 'dialing' decision, which the gate refuses (NO_ADDRESS) for a lead without a phone
      To: call.to_number!,
      // biome-ignore lint/style/noNonNullAssertion: dial() runs only for a 'dialing' decision, and both callers refuse one without a sending number
      From: call.from_number!,
      Twiml: twiml,
      StatusCallback: callbackUrl(deps.config, callPaths.status, organizationId, callId),
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallbackMethod: 'POST',
      AsyncAmdStatusCallback: callbackUrl(deps.config, callPaths.amd, organizationId, callId),
    });
    const startedAt = deps.clock.now();
    const started = startedAt.toISOString();
    await deps.db.transaction().execute(async (trx) => {
      await updateCall(trx, organizationId, callId, {
        status: 'queued',
        provider_call_id: sid,
        started_at: started,
        updated_at: started,
      });
      // An opening call's message went out with it: sent, and the cadence arms as after any sent opening.
      // A person's message sent as a call (message-call.ts) arms the cadence as their sent message would.
      const spoken = call.message_id !== null ? await findMessage(trx, organizationId, call.message_id) : undefined;
      if (call.message_id !== null) {
        await setMessageStatus(trx, organizationId, call.message_id, { status: 'sent', reason: null, at: started });
        await followUpAfterSend(
          trx,
          organizationId,
          {
            lead_id: lead.id,
            direction: 'outbound',
            purpose: 'conversation',
            is_ai_generated: spoken?.is_ai_generated ?? 1,
            is_follow_up: 0,
            follow_up_step: null,
            schedule_follow_ups: spoken?.schedule_follow_ups ?? null,
          },
          startedAt,
        );
      }
      // A follow-up step's call went out: the cadence waits for a reply from now, as after a sent message.
      if (call.follow_up_step !== null) {
        await followUpAfterSend(
          trx,
          organizationId,
          {
            lead_id: lead.id,
            direction: 'outbound',
            purpose: 'conversation',
            is_ai_generated: 1,
            is_follow_up: 1,
            follow_up_step: Number(call.follow_up_step),
            schedule_follow_ups: null,
          },
          startedAt,
        );
      }
    });
    return { status: 'dialing', statusReason: null, providerCallId: sid };
  } catch (err) {
    const reason = err instanceof TwilioCallError ? err.message : 'could not reach Twilio';
    const ended = deps.clock.now().toISOString();
    await deps.db.transaction().execute(async (trx) => {
      await updateCall(trx, organizationId, callId, {
        status: 'failed',
        outcome: 'failed',
        status_reason: reason,
        ended_at: ended,
        updated_at: ended,
      });
      if (call.message_id !== null)
        await setMessageStatus(trx, organizationId, call.message_id, { status: 'failed', reason, at: ended });
    });
    return { status: 'failed', statusReason: reason, providerCallId: null };
  }
}

/**
 * The `call.place` job: a waiting call's time came. The gate is asked again
 * under the lead's lock (the lead may have opted out meanwhile); allowed, it
 * is dialled; held again, it waits again; refused, it is recorded blocked.
 */
export async function runWaitingCall(deps: Deps, organizationId: string, callId: string): Promise<JobOutcome> {
  const done: JobOutcome = { kind: 'done' };
  const now = deps.clock.now();
  const at = now.toISOString();
  const judged = await deps.db.transaction().execute(async (trx) => {
    const call = await findCall(trx, organizationId, callId);
    if (call?.status !== 'waiting' || !call.lead_id) return null;
    const lead = await findLead(trx, organizationId, call.lead_id, true);
    // An opening call follows its message (call-records/waiting-calls.ts): stopped meanwhile (a campaign paused, an opt-out), it is not dialled.
    const opening = call.message_id ? await findMessage(trx, organizationId, call.message_id) : undefined;
    const stop = async (status: 'blocked' | 'failed', code: string | null, reason: string) => {
      await updateCall(trx, organizationId, callId, {
        status,
        status_code: code,
        status_reason: reason,
        ...(status === 'failed' ? { outcome: 'failed' } : {}),
        updated_at: at,
      });
      if (opening?.status === 'scheduled')
        await setMessageStatus(trx, organizationId, opening.id, { status, code, reason, at });
    };
    if (call.message_id && opening?.status !== 'scheduled') {
      const which = call.placed_by_person === 1 ? 'its message' : 'its opening message';
      await stop('blocked', opening?.status_code ?? null, `${which} was ${opening?.status ?? 'erased'}`);
      return null;
    }
    if (!lead?.phone) {
      await stop('blocked', 'NO_ADDRESS', 'lead has no phone');
      return null;
    }
    if (!deps.config.twilio) {
      await stop('failed', null, 'Twilio is not configured on this server');
      return null;
    }
    const j = await judge(
      trx,
      deps,
      organizationId,
      lead,
      now,
      call.override_business_hours === 1,
      // A call speaking a message (an opening, a message sent as a call) is judged as that message: an opening as the agent's.
      opening
        ? {
            sendWhenOff: call.send_when_off === 1,
            byPerson: call.placed_by_person === 1,
            inReplyTo: opening?.in_reply_to ?? null,
          }
        : undefined,
    );
    const d = j.decision;
    if (d.status === 'dialing' && !j.from) {
      await stop('failed', null, 'no sending number');
      return null;
    }
    if (d.status === 'blocked') {
      await stop('blocked', d.code, d.reason ?? 'blocked');
      return null;
    }
    await updateCall(trx, organizationId, callId, {
      status: d.status,
      status_code: d.code,
      status_reason: d.reason,
      from_number: j.from,
      updated_at: at,
    });
    if (d.status === 'waiting' && d.until) {
      await scheduleRetry(trx, organizationId, callId, d.until, at);
      if (opening)
        await setMessageStatus(trx, organizationId, opening.id, {
          status: 'scheduled',
          code: d.code,
          reason: d.reason,
          scheduledAt: d.until,
          at,
        });
    }
    return d.status === 'dialing' ? j : null;
  });
  if (judged) await dial(deps, organizationId, callId, judged.departAt);
  return done;
}

export interface InboundCallWebhook {
  From: string;
  To: string;
  CallSid?: string;
}

/**
 * A call to one of the organization's numbers ("A call comes in"): a known
 * lead whose AI is on is answered by the agent over ConversationRelay,
 * within the organization's contact hours.
 * Anyone else hears a short message; a known lead then gets a missed-call
 * text, scheduled through the send path (so the gate judges it), and an
 * unknown caller one judged by their number (runMissedCallText).
 */
export async function answerInboundCall(deps: Deps, organizationId: string, call: InboundCallWebhook): Promise<string> {
  const now = deps.clock.now();
  const at = now.toISOString();
  let caller: string | null = null;
  try {
    caller = normalizePhone(call.From, deps.config.defaultCountry);
  } catch {
    caller = null;
  }
  return deps.db.transaction().execute(async (trx) => {
    // Twilio posts the webhook again when its answer was late or lost: the call it made is answered the same way,
    // nothing recorded twice. provider_call_id is not unique, so posts of one CallSid take turns (PostgreSQL;
    // SQLite's write lock already serialises them) and a later one finds the first one's row.
    if (call.CallSid) await holdUntilCommit(trx, `inbound-call:${organizationId}:${call.CallSid}`);
    const again = call.CallSid ? await findCallBySid(trx, organizationId, call.CallSid) : undefined;
    if (again) return answerAgain(trx, deps, organizationId, again);
    const settings = await readSettings(trx, organizationId);
    const known = caller ? await findLeadByAddress(trx, organizationId, 'voice', caller) : undefined;
    // A caller nobody knows becomes a lead when the organization asks for it (settings `inboundLeads`).
    const lead =
      known ??
      (caller && settings.inboundLeads
        ? await createInboundLead(trx, deps, organizationId, 'voice', caller, settings.inboundLeads, now)
        : undefined);
    const id = newId();
    const row = {
      id,
      lead_id: lead?.id ?? null,
      direction: 'inbound' as const,
      provider_call_id: call.CallSid ?? null,
      from_number: caller ?? call.From,
      to_number: call.To,
      started_at: at,
      created_at: at,
      updated_at: at,
    };
    const closed = !insideWindow(now, settings.timeZone, settings.contactHours);
    if (!lead || lead.is_ai_on !== 1 || closed) {
      const why = !lead
        ? 'unknown caller'
        : lead.is_ai_on !== 1
          ? 'AI is off for this lead'
          : "outside the organization's hours";
      // A caller no lead holds gets the text too, judged by the gate by their number alone (runMissedCallText), unless their ID is withheld or no valid number.
      const untextable = lead ? null : untextableCaller(call.From, caller);
      await insertCall(trx, organizationId, {
        ...row,
        status: 'completed',
        outcome: 'missed',
        status_reason: untextable ? `${why}; no missed-call text: ${untextable}` : why,
        ...(untextable ? { status_code: TEXT_SKIPPED } : {}),
        ended_at: at,
      });
      if (!lead && !untextable) await enqueueJob(trx, organizationId, 'call.missed-text', { callId: id }, now, at);
      if (lead && lead.phone) {
        await scheduleSend(trx, {
          organizationId,
          lead,
          channel: 'sms',
          text: MISSED_CALL_TEXT,
          runAt: now,
          sendWhenOff: true,
          isAiGenerated: false,
          now: at,
        });
      }
      return sayAndHangUp(INBOUND_UNAVAILABLE);
    }
    const greeting = lead.first_name
      ? `Hi ${lead.first_name}, thanks for calling! How can I help you today?`
      : 'Hi, thanks for calling! How can I help you today?';
    await insertCall(trx, organizationId, { ...row, status: 'in-progress', greeting, answered_at: at });
    return answerByAgent(trx, deps, organizationId, id, lead, greeting);
  });
}

/** An inbound call the agent takes: ConversationRelay with the lead's profile voice. */
async function answerByAgent(
  trx: Db,
  deps: Deps,
  organizationId: string,
  callId: string,
  lead: LeadRow,
  greeting: string,
): Promise<string> {
  const voice = await readVoiceSettings(trx, organizationId, lead.customer_profile);
  return connectRelay(
    {
      relayUrl: relayUrl(deps.config, organizationId, callId),
      actionUrl: callbackUrl(deps.config, callPaths.action, organizationId, callId),
      language: voice.language ?? DEFAULT_LANGUAGE,
      voice: voice.voice,
      welcomeGreeting: greeting,
    },
    true,
  );
}

/** The TwiML a repeated "A call comes in" webhook gets: what the call's first answer said, from its row. */
async function answerAgain(trx: Db, deps: Deps, organizationId: string, call: CallRow): Promise<string> {
  const lead =
    call.lead_id && call.outcome !== 'missed' ? await findLead(trx, organizationId, call.lead_id) : undefined;
  if (!lead || call.greeting === null) return sayAndHangUp(INBOUND_UNAVAILABLE);
  return answerByAgent(trx, deps, organizationId, call.id, lead, call.greeting);
}

/** Twilio's terminal call states; the others (queued, ringing, in-progress) only move the status. */
const TERMINAL = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled']);

export interface CallStatusWebhook {
  CallSid?: string;
  CallStatus?: string;
  CallDuration?: string;
}

/**
 * A status callback of a live call. A terminal one ends the call: its
 * duration, and the outcome (what AMD, a transfer or an opt-out said, else
 * Twilio's state). An answered call announces `call.completed`, once.
 */
export async function applyCallStatus(
  deps: Deps,
  organizationId: string,
  callId: string,
  report: CallStatusWebhook,
): Promise<void> {
  const at = deps.clock.now().toISOString();
  const state = report.CallStatus ?? '';
  await deps.db.transaction().execute(async (trx) => {
    const call = await findCall(trx, organizationId, callId);
    if (!call) return;
    if (!TERMINAL.has(state)) {
      if (state !== '' && call.ended_at === null)
        await updateCall(trx, organizationId, call.id, { status: state, updated_at: at });
      return;
    }
    const duration = Number.parseInt(report.CallDuration ?? '', 10);
    const answered = state === 'completed';
    const outcome = call.outcome ?? (answered ? 'completed' : state);
    await updateCall(trx, organizationId, call.id, {
      status: answered ? 'completed' : state === 'canceled' ? 'canceled' : 'failed',
      outcome,
      ended_at: call.ended_at ?? at,
      updated_at: at,
      duration_seconds: Number.isFinite(duration) ? duration : (call.duration_seconds ?? 0),
      provider_call_id: call.provider_call_id ?? report.CallSid ?? null,
    });
    if (answered) await announceCompleted(trx, organizationId, call.id, at);
  });
}

/** `call.completed`, at most once per call, with the lead's summary when the call has none of its own. */
async function announceCompleted(trx: Db, organizationId: string, callId: string, at: string): Promise<void> {
  const call = await findCall(trx, organizationId, callId);
  if (!call?.lead_id) return;
  const lead = await findLead(trx, organizationId, call.lead_id);
  if (!lead) return;
  if (!(await claimCompletedEvent(trx, organizationId, call.id, at))) return;
  const summary = call.summary ?? lead.summary;
  await emitEvents(trx, organizationId, at, [
    callCompletedEvent(lead, {
      id: call.id,
      direction: call.direction,
      durationSeconds: call.duration_seconds,
      summary,
      outcome: call.outcome,
    }),
  ]);
}

/**
 * An inbound call ends with its relay session (or its transfer): Twilio posts
 * no status callback for a call it delivered to the number's webhook, so the
 * `<Connect action>` (or the transfer's `<Dial action>`) is where Parley
 * learns it is over. Its duration runs from the answer; `call.completed` is
 * announced as for an outbound call (once: a later status callback, when the
 * number has one, finds it done).
 */
async function endInboundCall(trx: Db, organizationId: string, call: CallRow, at: string): Promise<void> {
  if (call.direction !== 'inbound' || call.ended_at !== null) return;
  const from = call.answered_at ?? call.created_at;
  const duration = Math.max(0, Math.round((Date.parse(at) - Date.parse(from)) / 1000));
  await updateCall(trx, organizationId, call.id, {
    status: 'completed',
    outcome: call.outcome ?? 'completed',
    ended_at: at,
    duration_seconds: duration,
    updated_at: at,
  });
  await announceCompleted(trx, organizationId, call.id, at);
}

const MACHINE = /^(machine_|fax)/;

/**
 * Asynchronous answering-machine detection's verdict (AnsweredBy). A person:
 * the outcome is `human` and the agent goes on. A machine: with voicemail on
 * and a voicemail text, the call's TwiML is replaced by that text (it is said
 * after the beep, `DetectMessageEnd`) and a hang-up; otherwise the call is
 * ended at once. Either way the outcome is `voicemail`.
 */
export async function applyAmd(deps: Deps, organizationId: string, callId: string, answeredBy: string): Promise<void> {
  const twilio = requireTwilio(deps.config);
  const at = deps.clock.now().toISOString();
  const call = await findCall(deps.db, organizationId, callId);
  if (!call) return;
  if (answeredBy === 'human') {
    if (call.outcome === null)
      await updateCall(deps.db, organizationId, call.id, {
        outcome: 'human',
        answered_at: call.answered_at ?? at,
        updated_at: at,
      });
    return;
  }
  if (!MACHINE.test(answeredBy) || !call.provider_call_id) return;
  const lead = call.lead_id ? await findLead(deps.db, organizationId, call.lead_id) : undefined;
  const voice = lead ? await readVoiceSettings(deps.db, organizationId, lead.customer_profile) : {};
  const text =
    call.voicemail_enabled === 1 && voice.voicemailText && lead ? renderTemplate(voice.voicemailText, lead) : null;
  await updateCall(deps.db, organizationId, call.id, {
    outcome: 'voicemail',
    summary: text ? `Voicemail left: ${text}` : 'Answering machine; no voicemail left',
    updated_at: at,
  });
  await updateLiveCall(
    twilio,
    call.provider_call_id,
    text ? { Twiml: sayAndHangUp(text, false) } : { Status: 'completed' },
  );
}

export interface RelayActionWebhook {
  CallSid?: string;
  CallStatus?: string;
  SessionStatus?: string;
  HandoffData?: string;
}

interface Handoff {
  reasonCode?: string;
  reason?: string;
  summary?: string;
}

function parseHandoff(text: string | null | undefined): Handoff {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as Handoff) : {};
  } catch {
    return {};
  }
}

/**
 * The `<Connect action>` callback: the relay session ended. A transfer the
 * agent asked for (handoffData `live-agent-handoff`) raises a hand-off (its
 * owner, round-robin when the organization assigns, gets the summary by email
 * and SMS: handoffs/) and dials the owner's own phone (an owner who is away or
 * has none: the profile's transfer number), whispering the summary to whoever answers; the AI is off
 * for the lead from now on and `call.transferred` is announced. Without a
 * number to dial the lead hears an apology and the team a notification. An
 * opt-out gets its goodbye; anything else ends the call.
 */
export async function afterRelay(
  deps: Deps,
  organizationId: string,
  callId: string,
  hook: RelayActionWebhook,
): Promise<string> {
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const call = await findCall(trx, organizationId, callId);
    if (!call) return HANG_UP;
    const handoff = parseHandoff(hook.HandoffData ?? call.handoff_data);
    if (handoff.reasonCode === 'opted-out') {
      await endInboundCall(trx, organizationId, call, at);
      return sayAndHangUp(OPTED_OUT_GOODBYE);
    }
    if (handoff.reasonCode !== 'live-agent-handoff' || !call.lead_id) {
      await endInboundCall(trx, organizationId, call, at);
      return HANG_UP;
    }
    const lead = await findLead(trx, organizationId, call.lead_id, true);
    if (!lead) return HANG_UP;
    const voice = await readVoiceSettings(trx, organizationId, lead.customer_profile);
    const summary = handoff.summary ?? null;
    const raised = await raiseHandoff(trx, organizationId, lead, handoff.reason ?? summary, new Date(at));
    const owner = raised.owner_id ? await findRepRow(trx, organizationId, raised.owner_id) : undefined;
    const to =
      (owner && !owner.disabled_at && owner.is_away !== 1 ? owner.phone : null) ?? voice.transferNumber ?? null;
    await updateCall(trx, organizationId, call.id, {
      handoff_data: call.handoff_data ?? hook.HandoffData ?? null,
      summary: summary ?? call.summary,
      transfer_to: to,
      updated_at: at,
    });
    const events = lead.is_ai_on === 1 ? [handoffNotificationEvent(lead, 'voice', handoff.reason ?? summary)] : [];
    if (lead.is_ai_on === 1) await updateLead(trx, organizationId, lead.id, { is_ai_on: 0, updated_at: at });
    if (!to) {
      await emitEvents(trx, organizationId, at, events);
      await endInboundCall(trx, organizationId, call, at);
      return sayAndHangUp(TRANSFER_UNAVAILABLE);
    }
    await updateCall(trx, organizationId, call.id, { outcome: 'transferred', updated_at: at });
    await emitEvents(trx, organizationId, at, [
      ...events,
      callTransferredEvent(lead, call, {
        transferType: 'WARM',
        transferTo: to,
        reason: handoff.reason ?? null,
        summary,
      }),
    ]);
    return dialWithWhisper(
      to,
      callbackUrl(deps.config, callPaths.whisper, organizationId, call.id),
      callbackUrl(deps.config, callPaths.transferStatus, organizationId, call.id),
    );
  });
}

/** What the person answering a transfer hears: the agent's summary. */
export async function whisperFor(deps: Deps, organizationId: string, callId: string): Promise<string> {
  const call = await findCall(deps.db, organizationId, callId);
  const handoff = parseHandoff(call?.handoff_data);
  return whisper(handoff.summary ?? call?.summary ?? 'No summary was given.');
}

/** The transfer's `<Dial action>`: nobody answered, so the lead hears a message and the team gets the summary as a notification. */
export async function afterTransferDial(
  deps: Deps,
  organizationId: string,
  callId: string,
  dialStatus: string | undefined,
): Promise<string> {
  const at = deps.clock.now().toISOString();
  if (dialStatus === 'completed' || dialStatus === 'answered') {
    // The lead talked with the person: the transferred call is over now.
    await deps.db.transaction().execute(async (trx) => {
      const call = await findCall(trx, organizationId, callId);
      if (call) await endInboundCall(trx, organizationId, call, at);
    });
    return HANG_UP;
  }
  await deps.db.transaction().execute(async (trx) => {
    const call = await findCall(trx, organizationId, callId);
    if (!call?.lead_id) return;
    const lead = await findLead(trx, organizationId, call.lead_id);
    if (!lead) return;
    // Twilio may post the `<Dial action>` again: only the post that moves the outcome alerts anyone.
    if (!(await moveCallOutcome(trx, organizationId, call.id, 'transferred', 'transfer-unanswered', at))) return;
    await endInboundCall(trx, organizationId, { ...call, outcome: 'transfer-unanswered' }, at);
    const summary = parseHandoff(call.handoff_data).summary ?? call.summary ?? '';
    const missed = `Nobody answered the transfer to ${call.transfer_to ?? 'the team'}.`;
    const name = 'Transfer not answered';
    // The person who missed it must still learn what the lead wanted: the owner (or the admins) by SMS and email.
    await alertTeam(
      trx,
      { organizationId, lead, channel: 'voice', now: new Date(at) },
      { name, event: `${missed} ${summary}`.trim(), alert: summary ? `${missed} Summary: ${summary}` : missed },
    );
  });
  return sayAndHangUp(TRANSFER_UNAVAILABLE);
}

export type { CallRow };
export { findCallBySid };

/** The status_code of an unknown caller's missed call once its text went out (the gate's code when it did not). */
const TEXT_SENT = 'MISSED_CALL_TEXT_SENT';
/**
 * The status_code a run of the `call.missed-text` job sets, in the transaction
 * that judged the text, before it asks Twilio: only the run that set it sends,
 * so a retry after a lost answer, a crash or a lease that ran out never texts
 * twice (the courtesy text goes at most once; see settleMissedCallText).
 */
const TEXT_SENDING = 'MISSED_CALL_TEXT_SENDING';

/** The status_code of an unknown caller's call that gets no missed-call text by rule (its reason says which). */
const TEXT_SKIPPED = 'MISSED_CALL_TEXT_SKIPPED';
/** One missed-call text per number and organization in this long: a caller dialling again and again (SMS pumping) is not texted each time. */
const TEXT_REPEAT_MS = 24 * 60 * 60 * 1000;

/**
 * What Twilio puts in `From` when the caller withheld their ID: the words
 * ANONYMOUS, UNKNOWN, UNAVAILABLE, RESTRICTED, BLOCKED, PRIVATE, or those words
 * spelled on a keypad (+266696687 is ANONYMOUS). Texting them reaches a
 * stranger, or a premium number abroad.
 */
const WITHHELD = new Set([
  'ANONYMOUS',
  'UNKNOWN',
  'UNAVAILABLE',
  'RESTRICTED',
  'BLOCKED',
  'PRIVATE',
  '266696687',
  '8656696',
  '86282452253',
  '7378742833',
  '2562533',
  '7748283',
]);

/**
 * Why a caller no lead holds gets no missed-call text whatever the gate says,
 * or null: a withheld caller ID, or one that is no valid number. Any caller ID
 * can be spoofed; texting only valid numbers keeps the text off the premium
 * ranges SMS pumping dials from.
 */
function untextableCaller(raw: string, caller: string | null): string | null {
  const spelled = raw.trim().toUpperCase().replace(/^\+/, '');
  if (WITHHELD.has(spelled) || spelled === '') return `the caller ID is withheld (${raw.trim() || 'empty'})`;
  if (!caller || !isValidPhone(caller)) return `the caller ID ${raw.trim()} is not a valid phone number`;
  return null;
}

/**
 * The `call.missed-text` job: the missed-call text to a caller no lead holds
 * (settings `inboundLeads` off). There is no lead to record a message on, so
 * it is no message of a conversation: the gate judges it with the caller's
 * number standing in for a lead (numberOnlyLead), as the organization's own
 * text (not automated, AI state moot), waits for the night floor and the
 * organization's hours where the number is, and it goes straight to the SMS
 * adapter, as a hand-off alert does, from the number they called. Its fate is
 * kept on the call (`statusCode`). It is a courtesy, sent at most once: the
 * judging transaction marks the call MISSED_CALL_TEXT_SENDING before Twilio is
 * asked, and a run that finds the call marked never sends.
 */
export async function runMissedCallText(
  deps: Deps,
  organizationId: string,
  callId: string,
  lastAttempt: boolean,
): Promise<JobOutcome> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const judged = await deps.db.transaction().execute(async (trx) => {
    const call = await findCall(trx, organizationId, callId);
    if (!call || call.lead_id !== null || !call.from_number) return null;
    // A run that marked the call and then ended without settling it (a crash, a lost lease): whether Twilio took the text is unknown.
    if (call.status_code === TEXT_SENDING) {
      await moveCallStatusCode(trx, organizationId, call.id, TEXT_SENDING, {
        status_code: 'FAILED',
        status_reason: `${call.status_reason ?? 'missed'}; the missed-call text's attempt ended without an answer: not sent again (it goes at most once)`,
        updated_at: at,
      });
      return null;
    }
    if (call.status_code !== null) return null;
    // Two missed calls from one number judged at once (two workers on PostgreSQL) take turns here, so the
    // second sees the first one's mark and is skipped: one try a day per number. A text that failed counts:
    // its answer may have been lost after Twilio took it, and a refused number would be refused again.
    await holdUntilCommit(trx, `missed-call-text:${organizationId}:${call.from_number}`);
    const since = new Date(now.getTime() - TEXT_REPEAT_MS).toISOString();
    if (await missedCallTextSince(trx, organizationId, call.from_number, [TEXT_SENT, TEXT_SENDING, 'FAILED'], since)) {
      await updateCall(trx, organizationId, call.id, {
        status_code: TEXT_SKIPPED,
        status_reason: `${call.status_reason ?? 'missed'}; no missed-call text: the number was sent one, or one was tried, in the last 24 hours`,
        updated_at: at,
      });
      return null;
    }
    const settings = await readSettings(trx, organizationId);
    const decision = await checkOutbound(trx, deps.digests, organizationId, {
      lead: numberOnlyLead(organizationId, call.from_number, at),
      channel: 'sms',
      purpose: 'conversation',
      sendWhenOff: true,
      automated: false,
      settings,
      now,
    });
    if (decision.kind === 'wait') return { kind: 'wait' as const, until: decision.until, reason: decision.reason };
    const refusal =
      decision.kind === 'blocked'
        ? { code: decision.code, reason: decision.reason }
        : decision.kind === 'ask_external'
          ? { code: 'EXTERNAL_CHECK', reason: 'the External Compliance Check is asked about messages of leads only' }
          : null;
    // From the number they called; one the carrier retired as a sender cannot carry it, so the settings number does.
    const from = await replySender(trx, organizationId, call.to_number, settings.sendingNumber);
    if (refusal || !from) {
      const retired = call.to_number !== null && from !== call.to_number;
      const why = refusal ?? {
        code: 'NO_ADDRESS',
        reason: retired
          ? `the number they called (${call.to_number}) was retired by the carrier as a sender, and there is no settings number to send from`
          : 'no number to send from',
      };
      await updateCall(trx, organizationId, call.id, {
        status_code: why.code,
        status_reason: `${call.status_reason ?? 'missed'}; no missed-call text: ${why.reason}`,
        updated_at: at,
      });
      return null;
    }
    // Only the run that marks the call sends: at most once, whatever happens after Twilio is asked.
    if (!(await moveCallStatusCode(trx, organizationId, call.id, null, { status_code: TEXT_SENDING, updated_at: at })))
      return null;
    return { kind: 'send' as const, to: call.from_number, from, reason: call.status_reason };
  });
  if (!judged) return { kind: 'done' };
  if (judged.kind === 'wait') return { kind: 'defer', until: judged.until, reason: judged.reason };
  const settle = (code: string, reason: string) =>
    moveCallStatusCode(deps.db, organizationId, callId, TEXT_SENDING, {
      status_code: code,
      status_reason: `${judged.reason ?? 'missed'}; ${reason}`,
      updated_at: deps.clock.now().toISOString(),
    });
  try {
    await adapterFor(deps, 'sms').send({
      organizationId,
      messageId: `missed-call-${callId}`,
      leadId: '',
      channel: 'sms',
      to: judged.to,
      from: judged.from,
      text: MISSED_CALL_TEXT,
    });
  } catch (err) {
    const outcome = err instanceof SendError ? err.outcome : 'unknown';
    const text = err instanceof Error ? err.message : String(err);
    // Twilio never took it (unreachable, rate-limited): the mark is lifted so the retry may send; none is left on the last attempt.
    if (outcome === 'not_sent' && !lastAttempt) {
      await moveCallStatusCode(deps.db, organizationId, callId, TEXT_SENDING, {
        status_code: null,
        updated_at: deps.clock.now().toISOString(),
      });
      throw err;
    }
    const why =
      outcome === 'refused'
        ? `the missed-call text was refused: ${text}`
        : outcome === 'unknown'
          ? `the missed-call text's answer was lost (${text}): not sent again (it goes at most once)`
          : `the missed-call text was not sent: ${text}`;
    await settle('FAILED', why.slice(0, 400));
    return { kind: 'done' };
  }
  await settle(TEXT_SENT, 'the missed-call text was sent');
  return { kind: 'done' };
}
