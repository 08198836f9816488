import { expect } from 'vitest';
import type { Client, TestServer } from '../support/harness.js';
import { createLead, uniquePhone } from '../support/harness.js';
import { messages, turns, until, type TurnView } from '../agent/helpers.js';

/** Wednesday 2026-07-01 16:00Z: 09:00 in Los Angeles, where the suites' +1 415 leads are. */
export const WEDNESDAY = new Date('2026-07-01T16:00:00Z');
/** Thursday 2026-07-02: the organization's calendar (New York, 09:00-17:00) meets "Thursday afternoon" in Los Angeles (12:00-17:00) from 19:00Z to 21:00Z. */
export const THURSDAY_SLOTS = [
  '2026-07-02T19:00:00.000Z',
  '2026-07-02T19:30:00.000Z',
  '2026-07-02T20:00:00.000Z',
  '2026-07-02T20:30:00.000Z',
];
export const THURSDAY_LABELS = [
  'Thu, Jul 2, 12:00 PM PDT',
  'Thu, Jul 2, 12:30 PM PDT',
  'Thu, Jul 2, 1:00 PM PDT',
  'Thu, Jul 2, 1:30 PM PDT',
];

export const EMBEDDED = {
  contactHours: { start: '00:00', end: '00:00' },
  calendar: { provider: 'embedded', timeZone: 'America/New_York' },
};

let n = 0;
export const uniqueEmail = () => `booker${process.pid}-${++n}-${Math.random().toString(36).slice(2, 7)}@example.test`;

export async function newLead(c: Client, fields: Record<string, unknown> = {}) {
  const phone = uniquePhone();
  const email = uniqueEmail();
  const id = await createLead(c, { phone, email, ...fields });
  return { id, phone, email };
}

export type StepTurn = TurnView & { steps: { calls: { tool: string; ok: boolean; result: any }[] }[] };

/** The lead's message and the agent turn that answered it (finished). */
export async function say(c: Client, leadId: string, from: string, text: string): Promise<StepTurn> {
  const res = await c.post('/inbound', { channel: 'sms', from, text });
  expect(res.status).toBe(200);
  const messageId = res.body.messageId as string;
  const all = await until(
    () => turns(c, leadId),
    (ts) => ts.some((t) => t.triggerMessageId === messageId && t.status !== 'pending'),
  );
  return all.find((t) => t.triggerMessageId === messageId) as StepTurn;
}

export async function lastAiText(c: Client, leadId: string): Promise<string> {
  const ms = await messages(c, leadId);
  const ai = ms.filter((m) => m.direction === 'outbound' && m.isAiGenerated);
  return ai.at(-1)?.content.text ?? '';
}

export async function appointmentsOf(c: Client, leadId: string): Promise<any[]> {
  const res = await c.get(`/leads/${leadId}/appointments`);
  expect(res.status).toBe(200);
  return res.body.appointments as any[];
}

export const setCalendar = async (ts: TestServer, c: Client, body: Record<string, unknown>) => {
  const res = await c.patch('/settings', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
