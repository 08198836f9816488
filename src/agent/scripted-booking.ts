import { instantsAtLocal, localTime } from '../compliance/contact-window.js';
import type { Action, AgentInput, ToolResult } from './provider.js';

/**
 * The scripted agent's booking, with no model: a lead who asks to talk or
 * meet is offered the first free slots of the window their words name
 * ("Thursday afternoon", "tomorrow morning", else the next days), in their own
 * zone and language; the lead who answers with an offered slot's number (or
 * "yes": the first) gets it booked. A slot taken meanwhile is said so, and
 * other slots are offered. Only when the organization set a calendar.
 */

const MEETING = /\b(talk|call|meet|meeting|appointment|book|schedule|demo|chat|available|availability|slot)\b/i;
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const PARTS: Record<string, [number, number]> = {
  morning: [8 * 60, 12 * 60],
  afternoon: [12 * 60, 17 * 60],
  evening: [17 * 60, 21 * 60],
};
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];
const YES = /^\s*(yes|yeah|yep|ok|okay|sure|sounds good|that works|perfect)\b/i;
const DAY_MS = 86_400_000;
const OFFER = 3;

/** The window the lead's words name, in their zone: a weekday, today or tomorrow, and a part of the day. */
export function windowFromText(text: string, zone: string, now: Date): { from?: string; to?: string } {
  const lower = text.toLowerCase();
  const here = localTime(zone, now.getTime());
  const today = Math.floor(here.wall / DAY_MS) * DAY_MS;
  let day: number | undefined;
  const named = DAYS.findIndex((d) => new RegExp(`\\b${d}\\b`).test(lower));
  if (named >= 0) day = today + ((named - here.weekday + 7) % 7 || 7) * DAY_MS;
  else if (/\btomorrow\b/.test(lower)) day = today + DAY_MS;
  else if (/\btoday\b/.test(lower)) day = today;
  const part = Object.keys(PARTS).find((p) => lower.includes(p));
  if (day === undefined && !part) return {};
  // biome-ignore lint/style/noNonNullAssertion: part was found among Object.keys(PARTS)
  const [startMin, endMin] = part ? PARTS[part]! : [0, 24 * 60];
  const base = day ?? today;
  const at = (wall: number) => new Date(instantsAtLocal(zone, wall)[0] ?? wall).toISOString();
  // A part of the day without a day: the next few days at that time are searched (slots outside it are filtered out below).
  return {
    from: at(base + startMin * 60_000),
    to: at((day === undefined ? base + 7 * DAY_MS : base) + endMin * 60_000),
  };
}

function chosen(text: string, count: number): number | null {
  const number = /^\s*(?:option\s*|#)?([1-9])\b/i.exec(text);
  if (number) return Number(number[1]) - 1 < count ? Number(number[1]) - 1 : null;
  const ordinal = ORDINALS.findIndex((o) => new RegExp(`\\b${o}\\b`, 'i').test(text));
  if (ordinal >= 0) return ordinal < count ? ordinal : null;
  return YES.test(text) ? 0 : null;
}

type Slots = { timeZone: string; slots: { start: string; end: string; label: string }[] };

function offer(slots: Slots['slots'], sorry: boolean): Action {
  const lead = sorry ? 'Sorry, that time was just taken. ' : '';
  if (slots.length === 0)
    return { type: 'reply', text: `${lead}I could not find a free time then. Would another day suit you?` };
  const list = slots
    .slice(0, OFFER)
    .map((s, i) => `${i + 1}) ${s.label}`)
    .join(', ');
  return { type: 'reply', text: `${lead}I can offer: ${list}. Which one suits you? Reply with its number.` };
}

/** The slots of a part of the day stay within it (a "Thursday afternoon" without more is searched over several days). */
function withinPart(slots: Slots['slots'], text: string, zone: string): Slots['slots'] {
  const part = Object.keys(PARTS).find((p) => text.toLowerCase().includes(p));
  if (!part) return slots;
  // biome-ignore lint/style/noNonNullAssertion: part was found among Object.keys(PARTS)
  const [a, b] = PARTS[part]!;
  return slots.filter((s) => {
    const m = localTime(zone, new Date(s.start).getTime()).minute;
    return m >= a && m < b;
  });
}

/** The scripted booking's actions for this step, or null: the turn is not about an appointment. */
export function scriptedBooking(input: AgentInput, leadText: string): Action[] | null {
  const cal = input.calendar;
  if (!cal || input.task === 'opening') return null;
  const steps = input.steps ?? [];
  const last: ToolResult | undefined = steps.at(-1)?.results.at(-1);
  if (last?.name === 'bookAppointment') {
    if (last.ok) {
      const r = last.result as { label: string };
      return [
        { type: 'reply', text: `You are booked for ${r.label}. You will get a reminder before it. See you then!` },
      ];
    }
    // Taken meanwhile: the next free slots from the one the lead chose on.
    const chose = (steps.at(-1)?.actions.at(-1) as { start?: string } | undefined)?.start;
    return [{ type: 'findSlots', ...(chose ? { from: chose } : windowFromText(leadText, cal.timeZone, input.now)) }];
  }
  if (last?.name === 'findSlots') {
    const sorry = steps.some((s) => s.results.some((r) => r.name === 'bookAppointment' && !r.ok));
    if (!last.ok)
      return [
        {
          type: 'reply',
          text: 'Sorry, I cannot look at the calendar right now. A colleague will get back to you with times.',
        },
      ];
    const found = last.result as Slots;
    const fitting = withinPart(found.slots, leadText, cal.timeZone);
    return [offer(fitting.length > 0 ? fitting : found.slots, sorry)];
  }
  if (steps.length > 0) return null;
  const choice = cal.offeredSlots.length > 0 ? chosen(leadText, Math.min(OFFER, cal.offeredSlots.length)) : null;
  // biome-ignore lint/style/noNonNullAssertion: chosen() answers an index below min(OFFER, offeredSlots.length)
  if (choice !== null) return [{ type: 'bookAppointment', start: cal.offeredSlots[choice]!.start }];
  const window = windowFromText(leadText, cal.timeZone, input.now);
  if (MEETING.test(leadText) || window.from) return [{ type: 'findSlots', ...window }];
  return null;
}
