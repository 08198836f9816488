import { applyDeliveryReport } from '../../deliverability/deliverability.service.js';
import type { Deps } from '../../platform/deps.js';
import { DomainError } from '../../platform/errors.js';
import { normalizePhone } from '../../platform/phone.js';
import { organizationOfNumber } from '../../sending-numbers/ownership.js';
import type { InboundInput, InboundPipeline, InboundResult } from '../inbound-pipeline.js';

export class UnknownNumber extends DomainError<'unknown_number'> {
  constructor(number: string) {
    super('unknown_number', { number });
  }
}

/** The organization whose sending number this is (Twilio sends E.164; anything unparseable is simply nobody's). */
export async function organizationOf(deps: Deps, number: string | undefined): Promise<string | undefined> {
  if (!number) return undefined;
  let e164: string;
  try {
    e164 = normalizePhone(number, deps.config.defaultCountry);
  } catch {
    return undefined;
  }
  // The settings number, else a pool number: one statement (sending-numbers/ownership.ts).
  return organizationOfNumber(deps.db, e164);
}

async function requireOrganization(deps: Deps, number: string): Promise<string> {
  const organizationId = await organizationOf(deps, number);
  if (!organizationId) throw new UnknownNumber(number);
  return organizationId;
}

export interface SmsWebhook {
  From: string;
  To: string;
  Body?: string;
  MessageSid?: string;
}

/**
 * An SMS a lead sent to an organization's number: through the one inbound
 * pipeline. Twilio may deliver a webhook again (a retry after a timeout, an
 * operator's replay, a recorded request replayed): a MessageSid already
 * received is not processed twice, so a STOP is not confirmed twice, a
 * question is not answered twice, and an old START does not lift a newer STOP,
 * even after the lead was erased (inbound/inbound.ts, provider_receipts).
 */
export async function receiveSms(
  deps: Deps,
  inbound: InboundPipeline,
  sms: SmsWebhook,
): Promise<InboundResult | 'duplicate'> {
  const organizationId = await requireOrganization(deps, sms.To);
  const input: InboundInput = {
    channel: 'sms',
    from: sms.From,
    to: sms.To,
    text: sms.Body ?? '',
    providerMessageId: sms.MessageSid ?? null,
    actor: `twilio:${sms.MessageSid ?? 'unknown'}`,
  };
  return sms.MessageSid
    ? inbound.handleProviderInbound(deps, organizationId, input, `twilio:${sms.MessageSid}`)
    : inbound.handleInbound(deps, organizationId, input);
}

export interface GatherWebhook {
  From: string;
  To: string;
  Direction?: string;
  CallSid?: string;
  SpeechResult?: string;
}

/**
 * What the lead said on a call. Twilio names the parties of the call, not of
 * the speech: on a call we placed (Direction `outbound-api`, or `outbound-dial`
 * for a dialled leg) `From` is our number and `To` the lead; on a call the lead
 * placed to our number (Direction `inbound`) it is the other way round. So the
 * organization is found by whichever side is ours, and the lead by the other.
 */
export async function receiveSpeech(
  deps: Deps,
  inbound: InboundPipeline,
  call: GatherWebhook,
): Promise<InboundResult | 'silence' | 'duplicate'> {
  const weCalled = (call.Direction ?? '').startsWith('outbound');
  const ours = weCalled ? call.From : call.To;
  const theirs = weCalled ? call.To : call.From;
  const organizationId = await requireOrganization(deps, ours);
  const text = (call.SpeechResult ?? '').trim();
  if (text === '') return 'silence';
  const input: InboundInput = {
    channel: 'voice',
    from: theirs,
    to: ours,
    text,
    providerMessageId: call.CallSid ?? null,
    actor: `twilio:${call.CallSid ?? 'unknown'}`,
  };
  // A recorded call gathered once (say, gather, hang up; placed before voice became live calls): the call's id names the gather.
  return call.CallSid
    ? inbound.handleProviderInbound(deps, organizationId, input, `twilio:${call.CallSid}:gather`)
    : inbound.handleInbound(deps, organizationId, input);
}

export interface StatusWebhook {
  From?: string;
  To?: string;
  MessageSid?: string;
  MessageStatus?: string;
  CallSid?: string;
  CallStatus?: string;
  ErrorCode?: string;
}

const MESSAGE_STATES: Record<string, string> = { delivered: 'delivered', undelivered: 'undelivered', failed: 'failed' };
/** A call that was answered and ended "delivered" its message; one nobody picked up did not. */
const CALL_STATES: Record<string, string> = {
  completed: 'delivered',
  failed: 'failed',
  busy: 'undelivered',
  'no-answer': 'undelivered',
  canceled: 'undelivered',
};

/**
 * A delivery report for a message or call we sent: moves the message (found by
 * the provider's id, within the organization) to delivered / undelivered /
 * failed, with message.delivered / message.failed and what its error code's
 * class calls for (deliverability/). Intermediate states (queued, sent, ringing, ...) change nothing. The
 * callback is about something we sent, so our number is `From`; `To` is tried
 * too in case a number was configured the other way round.
 */
export async function applyStatus(deps: Deps, report: StatusWebhook): Promise<number> {
  const isMessage = report.MessageSid !== undefined && report.MessageStatus !== undefined;
  const sid = isMessage ? report.MessageSid : report.CallSid;
  const raw = (isMessage ? report.MessageStatus : report.CallStatus) ?? '';
  const status = (isMessage ? MESSAGE_STATES : CALL_STATES)[raw];
  const organizationId = (await organizationOf(deps, report.From)) ?? (await organizationOf(deps, report.To));
  if (!organizationId) throw new UnknownNumber(report.From ?? report.To ?? '(none)');
  if (!sid || !status) return 0;
  const reason =
    status === 'delivered'
      ? null
      : report.ErrorCode
        ? `Twilio error ${report.ErrorCode}`
        : `Twilio reported ${isMessage ? 'message' : 'call'} ${raw}`;
  // The error code is acted on by its class (deliverability/): an opt-out, an unreachable address, a retired number, a filtered count.
  const error =
    status !== 'delivered' && report.ErrorCode ? { provider: 'twilio' as const, code: report.ErrorCode } : null;
  return applyDeliveryReport(deps, organizationId, {
    providerMessageId: sid,
    status: status as 'delivered' | 'undelivered' | 'failed',
    reason,
    error,
    to: report.To ?? null,
    from: report.From ?? null,
    actor: `twilio:${sid}`,
  });
}
